"""The examples in the files package's docstrings run as written."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import agentry.files

MODULES = [
    "agentry.files",
    *(f"agentry.files.{m.name}" for m in pkgutil.iter_modules(agentry.files.__path__)),
]


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples(module_name: str) -> None:
    module = importlib.import_module(module_name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_every_public_name_is_documented() -> None:
    for name in agentry.files.__all__:
        value = getattr(agentry.files, name)
        if callable(value):
            assert value.__doc__, name
