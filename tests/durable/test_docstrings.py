"""The examples in the durable package's docstrings run as written."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import agentry.durable

MODULES = [
    "agentry.durable",
    *(f"agentry.durable.{m.name}" for m in pkgutil.iter_modules(agentry.durable.__path__)),
]


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples(module_name: str) -> None:
    module = importlib.import_module(module_name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
