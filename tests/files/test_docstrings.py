"""The examples in the files package's docstrings run as written."""

from __future__ import annotations

import pytest

import agentry.files
from tests.docstrings import failed_examples, modules_of


@pytest.mark.parametrize("module_name", modules_of(agentry.files))
def test_docstring_examples(module_name: str) -> None:
    assert failed_examples(module_name) == 0


def test_every_public_name_is_documented() -> None:
    for name in agentry.files.__all__:
        value = getattr(agentry.files, name)
        if callable(value):
            assert value.__doc__, name
