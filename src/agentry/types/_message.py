"""`Message`: a role and its contents."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

from typing_extensions import Required, TypedDict

from agentry.types._content import Content, StoredContent, content_from_stored
from agentry.types._serialization import SerializationMixin
from agentry.types._validation import check_fields, stored_fields

__all__ = ["AgentRunInputs", "Message", "RoleLiteral", "normalize_messages", "to_contents"]

RoleLiteral = Literal["system", "user", "assistant", "tool"]
"""The roles of a message."""

_ROLES = frozenset(("system", "user", "assistant", "tool"))
_LIST = (list,)  # `type(x) in _LIST`, unlike `type(x) is list`, leaves x's type as declared


def to_contents(contents: Iterable[Content | str] | Content | str | None) -> list[Content]:
    """Contents as a list, with plain strings turned into text content."""
    if contents is None:
        return []
    if isinstance(contents, str):
        return [Content.from_text(contents)]
    if isinstance(contents, Content):
        return [contents]
    if type(contents) in _LIST:
        listed: list[Content] = contents  # pyright: ignore[reportAssignmentType]
        if _ONLY_CONTENT.issuperset(map(type, listed)):  # the common case, no Python loop
            return listed.copy()
    return [Content.from_text(c) if isinstance(c, str) else c for c in contents]


@stored_fields
class StoredMessage(TypedDict, total=False):
    """A message as :meth:`Message.to_dict` writes it."""

    role: Required[RoleLiteral]
    contents: list[StoredContent]
    author_name: str | None
    message_id: str | None
    additional_properties: dict[str, Any] | None


class Message(SerializationMixin):
    """A chat message: who speaks (`role`) and what they say (`contents`).

    The role is one of `"system"`, `"user"`, `"assistant"` and `"tool"`; any other raises
    `ValueError` (so `Message("Hello")`, text without a role, fails at once: write
    `Message("user", "Hello")`).

    Example:
        >>> Message(role="user", contents=["What is 2 + 2?"]).text
        'What is 2 + 2?'
    """

    serialization_kind = "message"

    __slots__ = (
        "additional_properties",
        "author_name",
        "contents",
        "message_id",
        "raw_representation",
        "role",
    )

    def __init__(
        self,
        role: str,
        contents: Iterable[Content | str] | Content | str | None = None,
        *,
        text: str | None = None,
        author_name: str | None = None,
        message_id: str | None = None,
        additional_properties: dict[str, Any] | None = None,
        raw_representation: object = None,
    ) -> None:
        if role not in _ROLES:
            raise ValueError(_role_problem(role, contents))
        self.role = role
        self.contents = to_contents(contents)
        if text is not None:
            self.contents.append(Content.from_text(text))
        self.author_name = author_name
        self.message_id = message_id
        self.additional_properties = additional_properties
        self.raw_representation = raw_representation

    @property
    def text(self) -> str:
        """The text contents joined together."""
        contents = self.contents
        if len(contents) == 1:
            return contents[0].text or "" if contents[0].type == "text" else ""
        return "".join(c.text or "" for c in contents if c.type == "text")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the raw provider representation is left out)."""
        data: dict[str, object] = {
            "role": self.role,
            "contents": [c.to_dict() for c in self.contents],
        }
        if self.author_name is not None:
            data["author_name"] = self.author_name
        if self.message_id is not None:
            data["message_id"] = self.message_id
        if self.additional_properties:
            data["additional_properties"] = self.additional_properties
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Message:
        """Rebuild a message from :meth:`to_dict` output.

        Raises:
            SerializationError: `data` is not a message dict; the message names the field.
        """
        return message_from_stored(check_fields(StoredMessage, data, kind="message"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Message(role={self.role!r}, contents={self.contents!r})"


def message_from_stored(data: Mapping[str, Any]) -> Message:
    """A message from a dict already checked against :class:`StoredMessage`."""
    return Message(
        data["role"],
        [content_from_stored(c) for c in data.get("contents", ())],
        author_name=data.get("author_name"),
        message_id=data.get("message_id"),
        additional_properties=data.get("additional_properties"),
    )


AgentRunInputs: TypeAlias = str | Content | Message | Sequence[str | Content | Message]
"""What an agent run accepts: text, contents, messages, or a sequence of them."""


def normalize_messages(messages: AgentRunInputs | None) -> list[Message]:
    """Turn run input into a list of messages; text and bare contents become user messages."""
    if messages is None:
        return []
    # a list of messages (as each model call sends): copied, checked without a Python loop
    if type(messages) in _LIST:
        listed: list[Message] = messages  # pyright: ignore[reportAssignmentType]
        if _ONLY_MESSAGE.issuperset(map(type, listed)):
            return listed.copy()
    if isinstance(messages, str):
        return [Message("user", [Content.from_text(messages)])]
    if isinstance(messages, Message):
        return [messages]
    if isinstance(messages, Content):
        return [Message("user", [messages])]
    result: list[Message] = []
    for item in messages:
        if isinstance(item, Message):
            result.append(item)
        elif isinstance(item, str):
            result.append(Message("user", [Content.from_text(item)]))
        else:
            result.append(Message("user", [item]))
    return result


_ONLY_MESSAGE = frozenset((Message,))
_ONLY_CONTENT = frozenset((Content,))


def _role_problem(role: object, contents: object) -> str:
    problem = f"unknown message role {role!r}: a role is one of {', '.join(sorted(_ROLES))}"
    if isinstance(role, str) and contents is None:
        text = role if len(role) <= 40 else f"{role[:37]}..."
        quoted = json.dumps(text, ensure_ascii=False)
        return f'{problem}. For a user message with this text, write Message("user", {quoted})'
    return f'{problem}, as in Message("user", "Hello")'
