"""The examples in the durable package's docstrings run as written."""

from __future__ import annotations

import pytest

import agentry.durable
from tests.docstrings import failed_examples, modules_of


@pytest.mark.parametrize("module_name", modules_of(agentry.durable))
def test_docstring_examples(module_name: str) -> None:
    assert failed_examples(module_name) == 0
