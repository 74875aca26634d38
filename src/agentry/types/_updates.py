"""Streaming updates of chat clients and agents: one chunk of a response each."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from typing_extensions import TypedDict

from agentry.types._content import Content, StoredContent, content_from_stored
from agentry.types._message import to_contents
from agentry.types._serialization import SerializationMixin
from agentry.types._validation import check_fields, present_fields, stored_fields

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["AgentResponseUpdate", "ChatResponseUpdate", "FinishReason", "ResponseUpdateBase"]

FinishReason = str
"""Why a model stopped: "stop", "length", "tool_calls", "content_filter", or a provider's own."""

_UpdateT = TypeVar("_UpdateT", bound="ResponseUpdateBase")


@stored_fields
class _StoredUpdate(TypedDict, total=False):
    contents: list[StoredContent]
    role: str | None
    author_name: str | None
    message_id: str | None
    response_id: str | None
    created_at: str | None
    additional_properties: dict[str, Any] | None


@stored_fields
class _StoredChatResponseUpdate(_StoredUpdate, total=False):
    conversation_id: str | None
    model: str | None
    finish_reason: str | None


@stored_fields
class _StoredAgentResponseUpdate(_StoredUpdate, total=False):
    agent_id: str | None
    finish_reason: str | None


class ResponseUpdateBase(SerializationMixin):
    """Fields shared by chat and agent streaming updates (the base of both update types)."""

    __slots__ = (
        "additional_properties",
        "author_name",
        "contents",
        "created_at",
        "message_id",
        "raw_representation",
        "response_id",
        "role",
    )
    _extra_fields: ClassVar[tuple[str, ...]] = ()
    _stored_shape: ClassVar[type] = _StoredUpdate

    def __init__(
        self,
        *,
        contents: Iterable[Content | str] | Content | str | None = None,
        role: str | None = None,
        author_name: str | None = None,
        message_id: str | None = None,
        response_id: str | None = None,
        created_at: str | None = None,
        additional_properties: dict[str, Any] | None = None,
        raw_representation: object = None,
    ) -> None:
        self.contents = to_contents(contents)
        self.role = role
        self.author_name = author_name
        self.message_id = message_id
        self.response_id = response_id
        self.created_at = created_at
        self.additional_properties = additional_properties
        self.raw_representation = raw_representation

    @property
    def text(self) -> str:
        """The text contents of this update joined together."""
        return "".join(c.text or "" for c in self.contents if c.type == "text")

    @property
    def user_input_requests(self) -> list[Content]:
        """Contents of this update that ask the caller for input."""
        return [c for c in self.contents if c.user_input_request]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        fields = ("role", "author_name", "message_id", "response_id", "created_at")
        return {
            "contents": [c.to_dict() for c in self.contents],
            **present_fields(
                self, (*fields, *type(self)._extra_fields), self.additional_properties
            ),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Rebuild an update from :meth:`to_dict` output.

        Raises:
            SerializationError: `data` is not an update dict; the message names the field.
        """
        fields = check_fields(cls._stored_shape, data, kind=cls.__name__)
        contents = [content_from_stored(c) for c in fields.pop("contents", ())]
        return cls(contents=contents, **fields)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.to_dict() == cast("ResponseUpdateBase", other).to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(role={self.role!r}, contents={self.contents!r})"


class ChatResponseUpdate(ResponseUpdateBase):
    """One chunk of a streamed chat response.

    Example:
        >>> ChatResponseUpdate(role="assistant", contents=["Hel"]).text
        'Hel'
    """

    __slots__ = ("conversation_id", "finish_reason", "model")
    _extra_fields = ("conversation_id", "model", "finish_reason")
    _stored_shape = _StoredChatResponseUpdate

    def __init__(
        self,
        *,
        contents: Iterable[Content | str] | Content | str | None = None,
        role: str | None = None,
        author_name: str | None = None,
        message_id: str | None = None,
        response_id: str | None = None,
        conversation_id: str | None = None,
        model: str | None = None,
        finish_reason: FinishReason | None = None,
        created_at: str | None = None,
        additional_properties: dict[str, Any] | None = None,
        raw_representation: object = None,
    ) -> None:
        super().__init__(
            contents=contents,
            role=role,
            author_name=author_name,
            message_id=message_id,
            response_id=response_id,
            created_at=created_at,
            additional_properties=additional_properties,
            raw_representation=raw_representation,
        )
        self.conversation_id = conversation_id
        self.model = model
        self.finish_reason = finish_reason


class AgentResponseUpdate(ResponseUpdateBase):
    """One chunk of a streamed agent run."""

    __slots__ = ("agent_id", "finish_reason")
    _extra_fields = ("agent_id", "finish_reason")
    _stored_shape = _StoredAgentResponseUpdate

    def __init__(
        self,
        *,
        contents: Iterable[Content | str] | Content | str | None = None,
        role: str | None = None,
        author_name: str | None = None,
        agent_id: str | None = None,
        message_id: str | None = None,
        response_id: str | None = None,
        finish_reason: FinishReason | None = None,
        created_at: str | None = None,
        additional_properties: dict[str, Any] | None = None,
        raw_representation: object = None,
    ) -> None:
        super().__init__(
            contents=contents,
            role=role,
            author_name=author_name,
            message_id=message_id,
            response_id=response_id,
            created_at=created_at,
            additional_properties=additional_properties,
            raw_representation=raw_representation,
        )
        self.agent_id = agent_id
        self.finish_reason = finish_reason

    @classmethod
    def from_chat_update(
        cls,
        update: ChatResponseUpdate,
        *,
        agent_id: str | None = None,
        default_author: str | None = None,
    ) -> AgentResponseUpdate:
        """The agent-level view of a chat update (sharing its contents).

        Assistant updates without an author are attributed to `default_author`.
        """
        # Built field by field: this runs once per streamed chunk.
        agent_update = cls.__new__(cls)
        role = update.role
        agent_update.contents = update.contents
        agent_update.role = role
        agent_update.author_name = update.author_name or (
            default_author if role is None or role == "assistant" else None
        )
        agent_update.agent_id = agent_id
        agent_update.message_id = update.message_id
        agent_update.response_id = update.response_id
        agent_update.finish_reason = update.finish_reason
        agent_update.created_at = update.created_at
        agent_update.additional_properties = update.additional_properties
        agent_update.raw_representation = update
        return agent_update
