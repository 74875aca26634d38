"""A message's role is one of four; anything else fails where it is written."""

from __future__ import annotations

import pytest

from agentry import Message
from agentry.errors import SerializationError


@pytest.mark.parametrize("role", ["system", "user", "assistant", "tool"])
def test_the_four_roles_make_messages(role: str) -> None:
    assert Message(role, ["hi"]).role == role


def test_text_alone_is_refused_with_the_call_that_was_meant() -> None:
    with pytest.raises(ValueError, match=r"unknown message role 'Hello'") as caught:
        Message("Hello")
    assert 'Message("user", "Hello")' in str(caught.value)


def test_an_unknown_role_with_contents_names_the_valid_roles() -> None:
    with pytest.raises(ValueError, match="a role is one of assistant, system, tool, user"):
        Message("robot", ["beep"])


def test_a_stored_message_with_an_unknown_role_is_a_serialization_error() -> None:
    with pytest.raises(
        SerializationError,
        match="field 'role' should be 'system', 'user', 'assistant' or 'tool', not 'robot'",
    ):
        Message.from_dict({"role": "robot", "contents": []})
