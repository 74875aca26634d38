"""`Content`: one piece of a message, discriminated by its `type` field."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

from agentry.errors import ContentError, SerializationError

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["Content", "ContentType", "UsageDetails", "add_usage_details"]

ContentType = Literal[
    "text",
    "text_reasoning",
    "data",
    "uri",
    "error",
    "function_call",
    "function_result",
    "usage",
    "function_approval_request",
    "function_approval_response",
]
_CONTENT_TYPES: frozenset[str] = frozenset(ContentType.__args__)  # type: ignore[attr-defined]


class UsageDetails(TypedDict, total=False):
    """Token counts of one or more model calls. Providers may add keys of their own."""

    input_token_count: int
    output_token_count: int
    total_token_count: int


def add_usage_details(
    first: UsageDetails | None, second: UsageDetails | None
) -> UsageDetails | None:
    """Add two usage records key by key; `None` counts as nothing."""
    if first is None:
        return None if second is None else UsageDetails(**second)
    if second is None:
        return UsageDetails(**first)
    merged: dict[str, Any] = dict(first)
    for key, value in second.items():
        if isinstance(value, int):
            merged[key] = merged.get(key, 0) + value
    return cast("UsageDetails", merged)


# Fields serialised by `to_dict`, in order. `raw_representation` and `exception` are
# runtime-only: the provider's object and a live exception cannot be stored as JSON.
_FIELDS = (
    "text",
    "uri",
    "media_type",
    "call_id",
    "name",
    "arguments",
    "result",
    "message",
    "error_code",
    "usage_details",
    "id",
    "approved",
    "protected_data",
)


class Content:
    """One piece of a message: text, data, a function call or result, an error, usage.

    Build contents with the `from_*` factories; `type` says which fields are set.

    Example:
        >>> Content.from_text("hello").text
        'hello'
        >>> call = Content.from_function_call(call_id="1", name="add", arguments='{"a": 1}')
        >>> call.parse_arguments()
        {'a': 1}
    """

    __slots__ = (
        "additional_properties",
        "approved",
        "arguments",
        "call_id",
        "error_code",
        "exception",
        "function_call",
        "id",
        "media_type",
        "message",
        "name",
        "protected_data",
        "raw_representation",
        "result",
        "text",
        "type",
        "uri",
        "usage_details",
    )

    def __init__(
        self,
        type: ContentType,
        *,
        text: str | None = None,
        uri: str | None = None,
        media_type: str | None = None,
        call_id: str | None = None,
        name: str | None = None,
        arguments: str | Mapping[str, Any] | None = None,
        result: Any = None,
        exception: BaseException | None = None,
        message: str | None = None,
        error_code: str | None = None,
        usage_details: UsageDetails | None = None,
        id: str | None = None,
        function_call: Content | None = None,
        approved: bool | None = None,
        protected_data: str | None = None,
        additional_properties: dict[str, Any] | None = None,
        raw_representation: Any = None,
    ) -> None:
        self.type: ContentType = type
        self.text = text
        self.uri = uri
        self.media_type = media_type
        self.call_id = call_id
        self.name = name
        self.arguments: str | Mapping[str, Any] | None = arguments
        self.result = result
        self.exception = exception
        self.message = message
        self.error_code = error_code
        self.usage_details = usage_details
        self.id = id
        self.function_call = function_call
        self.approved = approved
        self.protected_data = protected_data
        self.additional_properties = additional_properties
        self.raw_representation = raw_representation

    # region factories

    @classmethod
    def from_text(cls, text: str, **kwargs: Any) -> Self:
        """Plain text."""
        return cls("text", text=text, **kwargs)

    @classmethod
    def from_text_reasoning(cls, text: str, **kwargs: Any) -> Self:
        """Reasoning text a model exposes beside its answer."""
        return cls("text_reasoning", text=text, **kwargs)

    @classmethod
    def from_data(cls, data: bytes, media_type: str, **kwargs: Any) -> Self:
        """Binary data (an image, a file), kept as a base64 `data:` URI."""
        encoded = base64.b64encode(data).decode("ascii")
        return cls(
            "data", uri=f"data:{media_type};base64,{encoded}", media_type=media_type, **kwargs
        )

    @classmethod
    def from_uri(cls, uri: str, media_type: str | None = None, **kwargs: Any) -> Self:
        """A reference to content elsewhere; a `data:` URI becomes `data` content."""
        if uri.startswith("data:"):
            header = uri[5:].split(",", 1)[0]
            return cls("data", uri=uri, media_type=media_type or header.split(";")[0], **kwargs)
        return cls("uri", uri=uri, media_type=media_type, **kwargs)

    @classmethod
    def from_error(cls, message: str, *, error_code: str | None = None, **kwargs: Any) -> Self:
        """An error the model or a provider reported inside a response."""
        return cls("error", message=message, error_code=error_code, **kwargs)

    @classmethod
    def from_function_call(
        cls,
        *,
        call_id: str,
        name: str,
        arguments: str | Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Self:
        """A model's request to call a tool; `arguments` is a dict or a JSON string."""
        return cls("function_call", call_id=call_id, name=name, arguments=arguments, **kwargs)

    @classmethod
    def from_function_result(
        cls,
        *,
        call_id: str,
        result: Any = None,
        exception: BaseException | None = None,
        **kwargs: Any,
    ) -> Self:
        """The result of a tool call, sent back to the model."""
        return cls("function_result", call_id=call_id, result=result, exception=exception, **kwargs)

    @classmethod
    def from_usage(cls, usage_details: UsageDetails, **kwargs: Any) -> Self:
        """Token usage reported inside a stream."""
        return cls("usage", usage_details=usage_details, **kwargs)

    @classmethod
    def from_function_approval_request(
        cls, *, id: str, function_call: Content, **kwargs: Any
    ) -> Self:
        """A request for a person to approve a tool call before it runs."""
        return cls("function_approval_request", id=id, function_call=function_call, **kwargs)

    @classmethod
    def from_function_approval_response(
        cls, *, id: str, function_call: Content, approved: bool, **kwargs: Any
    ) -> Self:
        """A person's answer to a :meth:`from_function_approval_request` content."""
        return cls(
            "function_approval_response",
            id=id,
            function_call=function_call,
            approved=approved,
            **kwargs,
        )

    # endregion

    @property
    def user_input_request(self) -> bool:
        """Whether this content asks the caller for input (an approval request)."""
        return self.type == "function_approval_request"

    def to_function_approval_response(self, approved: bool) -> Content:
        """Answer this approval request.

        Raises:
            ContentError: This content is not a function approval request.
        """
        if self.type != "function_approval_request" or self.function_call is None or not self.id:
            raise ContentError(
                f"to_function_approval_response() needs a function_approval_request content, "
                f"not {self.type!r} content"
            )
        return Content.from_function_approval_response(
            id=self.id, function_call=self.function_call, approved=approved
        )

    def parse_arguments(self) -> dict[str, Any]:
        """The function-call arguments as a dict.

        Raises:
            ContentError: The arguments are not a JSON object.
        """
        arguments = self.arguments
        if arguments is None or arguments == "":
            return {}
        if isinstance(arguments, str):
            try:
                parsed = json.loads(arguments)
            except json.JSONDecodeError as error:
                raise ContentError(
                    f"arguments of the call to {self.name!r} are not valid JSON ({error.msg} "
                    f"at position {error.pos}): {arguments[:200]!r}"
                ) from None
        else:
            parsed = arguments
        if not isinstance(parsed, Mapping):
            raise ContentError(
                f"arguments of the call to {self.name!r} must be a JSON object, "
                f"got {type(parsed).__name__}"
            )
        return dict(cast("Mapping[str, Any]", parsed))

    def get_data_bytes(self) -> bytes:
        """The decoded bytes of `data` content."""
        if self.type != "data" or not self.uri or ";base64," not in self.uri:
            raise ContentError(f"{self.type!r} content holds no base64 data")
        return base64.b64decode(self.uri.split(";base64,", 1)[1])

    # region merging (streaming)

    def can_merge(self, other: Content) -> bool:
        """Whether `other` continues this content in a stream (same text kind or call).

        A reasoning content that carries protected data is complete.
        """
        if self.type != other.type:
            return False
        if self.type == "text":
            return True
        if self.type == "text_reasoning":
            # Protected data (a signature, encrypted reasoning) closes a reasoning block:
            # what follows is the next block, which must go back to its provider apart.
            return not self.protected_data
        if self.type == "function_call":
            return other.call_id in (None, "", self.call_id)
        return False

    def merge(self, other: Content) -> Content:
        """A new content: this one continued by `other` (see :meth:`can_merge`)."""
        if self.type == "function_call":
            merged = self.copy()
            merged.arguments = _join_arguments(self.arguments, other.arguments)
            merged.name = self.name or other.name
            return merged
        merged = self.copy()
        merged.text = (self.text or "") + (other.text or "")
        if other.protected_data:
            merged.protected_data = other.protected_data
        return merged

    # endregion

    def copy(self) -> Content:
        """A shallow copy."""
        clone = Content.__new__(Content)
        for slot in Content.__slots__:
            setattr(clone, slot, getattr(self, slot))
        return clone

    # region serialisation

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; runtime-only fields (raw representation, exception) are left out."""
        data: dict[str, Any] = {"type": self.type}
        for field in _FIELDS:
            value = getattr(self, field)
            if value is not None:
                data[field] = _jsonable(value) if field == "result" else value
        if self.arguments is not None and not isinstance(self.arguments, str):
            data["arguments"] = dict(self.arguments)
        if self.function_call is not None:
            data["function_call"] = self.function_call.to_dict()
        if self.additional_properties:
            data["additional_properties"] = self.additional_properties
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Content:
        """Rebuild a content from :meth:`to_dict` output.

        Raises:
            SerializationError: `data` is not a content dict.
        """
        content_type = data.get("type")
        if content_type not in _CONTENT_TYPES:
            raise SerializationError(
                f"unknown content type {content_type!r}; expected one of {sorted(_CONTENT_TYPES)}"
            )
        unknown = set(data) - set(_FIELDS) - {"type", "function_call", "additional_properties"}
        if unknown:
            raise SerializationError(f"unknown content fields {sorted(unknown)}")
        kwargs: dict[str, Any] = {field: data[field] for field in _FIELDS if field in data}
        if "function_call" in data:
            kwargs["function_call"] = Content.from_dict(data["function_call"])
        if "additional_properties" in data:
            kwargs["additional_properties"] = dict(data["additional_properties"])
        return Content(cast("ContentType", content_type), **kwargs)

    # endregion

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Content):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{field}={getattr(self, field)!r}"
            for field in ("text", "name", "call_id", "arguments", "result", "uri", "message", "id")
            if getattr(self, field) is not None
        )
        return f"Content(type={self.type!r}{', ' if shown else ''}{shown})"


def _join_arguments(
    first: str | Mapping[str, Any] | None, second: str | Mapping[str, Any] | None
) -> str | Mapping[str, Any] | None:
    if second is None or second == "":
        return first
    if first is None or first == "":
        return second
    if isinstance(first, str) and isinstance(second, str):
        return first + second
    raise ContentError("cannot merge streamed function-call arguments of mixed kinds")


def _jsonable(value: Any) -> Any:
    """Tool results are usually JSON already; anything else is stored as its string form."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Content):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in cast("Mapping[Any, Any]", value).items()}
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        return [_jsonable(v) for v in cast("Sequence[Any]", value)]
    to_json = getattr(value, "model_dump", None)
    if callable(to_json):
        return to_json(mode="json")
    return str(value)
