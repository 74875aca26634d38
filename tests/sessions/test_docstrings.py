"""The examples in the sessions package's docstrings run as written."""

from __future__ import annotations

import pytest

import agentry.sessions
from tests.docstrings import failed_examples, modules_of


@pytest.mark.parametrize("module_name", modules_of(agentry.sessions))
def test_docstring_examples(module_name: str) -> None:
    assert failed_examples(module_name) == 0
