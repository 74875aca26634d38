"""Responses and streaming updates of chat clients and agents.

A non-streaming response is the fold of the updates of a stream (see `from_updates`), so
the two never disagree.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, cast

from typing_extensions import TypedDict, TypeVar

from agentry.types._content import Content, UsageDetails, add_usage_details, extend_content
from agentry.types._message import Message, StoredMessage, message_from_stored
from agentry.types._serialization import SerializationMixin
from agentry.types._structured_output import parse_structured_output
from agentry.types._updates import (
    AgentResponseUpdate,
    ChatResponseUpdate,
    FinishReason,
    ResponseUpdateBase,
)
from agentry.types._validation import check_fields, present_fields, stored_fields

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["AgentResponse", "ChatResponse"]

_UpdateT = TypeVar("_UpdateT", bound=ResponseUpdateBase)
ValueT = TypeVar("ValueT", default=Any)
"""The type of a response's structured `value`: the response format's model class, or
`Any` when the format is a JSON schema dict or none was asked for."""


@stored_fields
class _StoredResponse(TypedDict, total=False):
    messages: list[StoredMessage]
    response_id: str | None
    created_at: str | None
    finish_reason: str | None
    usage_details: dict[str, Any] | None
    additional_properties: dict[str, Any] | None


@stored_fields
class _StoredChatResponse(_StoredResponse, total=False):
    conversation_id: str | None
    model: str | None


@stored_fields
class _StoredAgentResponse(_StoredResponse, total=False):
    agent_id: str | None


class _ResponseBase(SerializationMixin, Generic[_UpdateT, ValueT]):
    """Fields shared by chat and agent responses, and folding streams of updates."""

    __slots__ = (
        "_value",
        "additional_properties",
        "created_at",
        "finish_reason",
        "messages",
        "raw_representation",
        "response_format",
        "response_id",
        "usage_details",
    )
    _extra_fields: ClassVar[tuple[str, ...]] = ()
    _update_class: ClassVar[type[ResponseUpdateBase]]
    _stored_shape: ClassVar[type] = _StoredResponse

    def __init__(
        self,
        *,
        messages: Message | Sequence[Message] | None = None,
        response_id: str | None = None,
        created_at: str | None = None,
        finish_reason: FinishReason | None = None,
        usage_details: UsageDetails | None = None,
        value: object = None,
        response_format: object = None,
        additional_properties: dict[str, Any] | None = None,
        raw_representation: object = None,
    ) -> None:
        if messages is None:
            self.messages: list[Message] = []
        elif isinstance(messages, Message):
            self.messages = [messages]
        else:
            self.messages = list(messages)
        self.response_id = response_id
        self.created_at = created_at
        self.finish_reason = finish_reason
        self.usage_details = usage_details
        self._value = value
        self.response_format = response_format
        self.additional_properties = additional_properties
        self.raw_representation = raw_representation

    @property
    def text(self) -> str:
        """The text of all messages, one message per line."""
        return "\n".join(text for text in (m.text for m in self.messages) if text)

    @property
    def value(self) -> ValueT:
        """The structured output: the answer parsed with the `response_format`.

        The answer is the text of the last assistant message (earlier ones may be answers
        that did not validate and were asked again). `None` when no response format was
        asked for.

        Raises:
            OutputValidationError: The answer does not validate against the format.
        """
        if self._value is None and self.response_format is not None:
            self._value = parse_structured_output(self.answer_text, self.response_format)
        return cast("ValueT", self._value)

    @property
    def answer_text(self) -> str:
        """The text of the last assistant message that has text: the final answer."""
        for message in reversed(self.messages):
            if message.role == "assistant" and message.text:
                return message.text
        return ""

    @property
    def user_input_requests(self) -> list[Content]:
        """Contents that ask the caller for input: tool-approval and authorization requests."""
        return [c for m in self.messages for c in m.contents if c.user_input_request]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the structured value is rebuilt from the text, not stored)."""
        fields = ("response_id", "created_at", "finish_reason", "usage_details")
        return {
            "messages": [m.to_dict() for m in self.messages],
            **present_fields(
                self, (*fields, *type(self)._extra_fields), self.additional_properties
            ),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Rebuild a response from :meth:`to_dict` output.

        Raises:
            SerializationError: `data` is not a response dict; the message names the field.
        """
        fields = check_fields(cls._stored_shape, data, kind=cls.__name__)
        messages = [message_from_stored(m) for m in fields.pop("messages", ())]
        return cls(messages=messages, **fields)

    @classmethod
    def from_updates(cls, updates: Iterable[_UpdateT], *, response_format: object = None) -> Self:
        """Fold a stream of updates into the response it describes."""
        response = cls(response_format=response_format)
        _fold(response, updates, extra_fields=cls._extra_fields)
        return response

    @classmethod
    async def from_update_stream(
        cls, updates: AsyncIterable[_UpdateT], *, response_format: object = None
    ) -> Self:
        """Consume an async stream of updates and fold it (see :meth:`from_updates`)."""
        return cls.from_updates([u async for u in updates], response_format=response_format)

    def to_updates(self) -> list[_UpdateT]:
        """This response as the stream of updates that folds back into it."""
        make = cast(Callable[..., _UpdateT], type(self)._update_class)
        shared = {field: getattr(self, field) for field in type(self)._extra_fields}
        updates = [
            make(
                contents=list(m.contents),
                role=m.role,
                author_name=m.author_name,
                message_id=message_id,
                response_id=self.response_id,
                created_at=self.created_at,
                additional_properties=m.additional_properties,
                **shared,
            )
            for m, message_id in zip(self.messages, _distinct_ids(self.messages), strict=True)
        ]
        if not updates:
            updates.append(make(response_id=self.response_id, **shared))
        last = updates[-1]
        last.finish_reason = self.finish_reason  # type: ignore[attr-defined]
        if self.usage_details:
            last.contents.append(Content("usage", usage_details=self.usage_details))
        return updates

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.to_dict() == cast("_ResponseBase[Any, Any]", other).to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(messages={self.messages!r})"


class ChatResponse(_ResponseBase[ChatResponseUpdate, ValueT]):
    """A chat client's response: the messages the model produced, and usage.

    Generic in the type of its structured `value` (`ChatResponse[Person]`).

    Example:
        >>> ChatResponse(messages=[Message(role="assistant", contents=["Hi!"])]).text
        'Hi!'
    """

    __slots__ = ("conversation_id", "model")
    _extra_fields = ("conversation_id", "model")
    _update_class = ChatResponseUpdate
    _stored_shape = _StoredChatResponse

    def __init__(
        self,
        *,
        messages: Message | Sequence[Message] | None = None,
        response_id: str | None = None,
        conversation_id: str | None = None,
        model: str | None = None,
        created_at: str | None = None,
        finish_reason: FinishReason | None = None,
        usage_details: UsageDetails | None = None,
        value: object = None,
        response_format: object = None,
        additional_properties: dict[str, Any] | None = None,
        raw_representation: object = None,
    ) -> None:
        _ResponseBase.__init__(  # pyright: ignore[reportUnknownMemberType]  # quicker than super()
            self,
            messages=messages,
            response_id=response_id,
            created_at=created_at,
            finish_reason=finish_reason,
            usage_details=usage_details,
            value=value,
            response_format=response_format,
            additional_properties=additional_properties,
            raw_representation=raw_representation,
        )
        self.conversation_id = conversation_id
        self.model = model


class AgentResponse(_ResponseBase[AgentResponseUpdate, ValueT]):
    """The result of an agent run: the messages it produced, usage, and structured output.

    Generic in the type of its structured `value`: `agent.run(..., response_format=Person)`
    returns an `AgentResponse[Person]`.

    Example:
        >>> AgentResponse(messages=[Message(role="assistant", contents=["Done."])]).text
        'Done.'
    """

    __slots__ = ("agent_id",)
    _extra_fields = ("agent_id",)
    _update_class = AgentResponseUpdate
    _stored_shape = _StoredAgentResponse

    def __init__(
        self,
        *,
        messages: Message | Sequence[Message] | None = None,
        response_id: str | None = None,
        agent_id: str | None = None,
        created_at: str | None = None,
        finish_reason: FinishReason | None = None,
        usage_details: UsageDetails | None = None,
        value: object = None,
        response_format: object = None,
        additional_properties: dict[str, Any] | None = None,
        raw_representation: object = None,
    ) -> None:
        _ResponseBase.__init__(  # pyright: ignore[reportUnknownMemberType]  # quicker than super()
            self,
            messages=messages,
            response_id=response_id,
            created_at=created_at,
            finish_reason=finish_reason,
            usage_details=usage_details,
            value=value,
            response_format=response_format,
            additional_properties=additional_properties,
            raw_representation=raw_representation,
        )
        self.agent_id = agent_id


def _distinct_ids(messages: list[Message]) -> list[str | None]:
    """Message ids that keep neighbouring messages apart when their updates are folded.

    A message without an id that follows one of the same role gets a fresh id; every other
    message keeps its own (possibly missing) id.
    """
    ids: list[str | None] = []
    previous: Message | None = None
    for message in messages:
        message_id = message.message_id
        if message_id is None and previous is not None and previous.role == message.role:
            message_id = uuid.uuid4().hex
        ids.append(message_id)
        previous = message
    return ids


def _fold(
    response: _ResponseBase[Any, Any],
    updates: Iterable[ResponseUpdateBase],
    *,
    extra_fields: tuple[str, ...],
) -> None:
    """Fold `updates` into `response`: group contents into messages, merge text and
    streamed call arguments, add up usage, keep the last value of response-level fields
    (the common ones and `extra_fields`)."""
    messages = response.messages
    current: Message | None = None
    merged: Content | None = None  # the fold's own copy of the last content, extended in place
    for update in updates:
        role = update.role
        message_id = update.message_id
        if (
            current is None
            or (role is not None and role != current.role)
            or (message_id is not None and current.message_id != message_id)
        ):
            current = Message(
                role or "assistant",
                author_name=update.author_name,
                message_id=message_id,
                additional_properties=update.additional_properties,
            )
            messages.append(current)
        else:
            if message_id is not None:
                current.message_id = message_id
            if update.author_name is not None:
                current.author_name = update.author_name
        contents = current.contents
        for content in update.contents:
            if content.type == "usage":
                response.usage_details = add_usage_details(
                    response.usage_details, content.usage_details
                )
            elif contents and contents[-1].can_merge(content):
                last = contents[-1]
                if last is not merged:
                    last = merged = contents[-1] = last.copy()
                extend_content(last, content)
            else:
                contents.append(content)
        if update.response_id is not None:
            response.response_id = update.response_id
        if update.created_at is not None:
            response.created_at = update.created_at
        finish_reason = getattr(update, "finish_reason", None)
        if finish_reason is not None:
            response.finish_reason = finish_reason
        for field in extra_fields:
            value = getattr(update, field, None)
            if value is not None:
                setattr(response, field, value)
    # A message that only carried usage has nothing left to say.
    response.messages = [m for m in messages if m.contents]
