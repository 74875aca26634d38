"""The examples in the skills package's docstrings run as written."""

from __future__ import annotations

import pytest

import agentry.skills
from tests.docstrings import failed_examples, modules_of


@pytest.mark.parametrize("module_name", modules_of(agentry.skills))
def test_docstring_examples(module_name: str) -> None:
    assert failed_examples(module_name) == 0


def test_every_public_name_is_documented() -> None:
    for name in agentry.skills.__all__:
        value = getattr(agentry.skills, name)
        if callable(value):
            assert value.__doc__, name
