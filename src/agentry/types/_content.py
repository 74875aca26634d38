"""`Content`: one piece of a message, discriminated by its `type` field."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from typing_extensions import Required, TypedDict

from agentry.errors import ContentError, SerializationError
from agentry.types._validation import check_fields, stored_fields

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["AuthorizationFlow", "Content", "ContentType", "UsageDetails", "add_usage_details"]

_JSON_MEDIA_TYPE = "application/json"
_DICT = (dict,)
"""Checked before `Mapping`: a type test is quicker than the abstract class's check."""


def _is_json_media_type(media_type: str | None) -> bool:
    """Whether `media_type` names JSON: `application/json` or a type ending in `+json`."""
    if not media_type:
        return False
    essence = media_type.split(";", 1)[0].strip().lower()
    return essence == _JSON_MEDIA_TYPE or essence.endswith("+json")


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
    "authorization_request",
    "authorization_response",
]
_CONTENT_TYPES: frozenset[str] = frozenset(ContentType.__args__)  # type: ignore[attr-defined]

AuthorizationFlow = Literal["in_band", "out_of_band"]
"""How a caller authorizes: by sending credentials back (`in_band`), or by completing a flow
elsewhere, such as an OAuth consent page (`out_of_band`)."""
_AUTHORIZATION_FLOWS = ("in_band", "out_of_band")


class UsageDetails(TypedDict, total=False):
    """Token counts of one or more model calls. Providers may add keys of their own."""

    input_token_count: int
    output_token_count: int
    total_token_count: int


def add_usage_details(
    first: UsageDetails | None, second: UsageDetails | None
) -> UsageDetails | None:
    """Add two usage records key by key; `None` counts as nothing."""
    if first is None:  # a copy: dict() is quicker than UsageDetails(**...)
        return None if second is None else cast("UsageDetails", dict(second))
    if second is None:
        return cast("UsageDetails", dict(first))
    merged: dict[str, Any] = dict(first)
    for key, value in second.items():
        if isinstance(value, int):
            merged[key] = merged.get(key, 0) + value
    return cast("UsageDetails", merged)


# Fields serialised by `to_dict`, in order. `raw_representation` and `exception` are
# runtime-only: the provider's object and a live exception cannot be stored as JSON.
# `credentials` is runtime-only too: secrets never reach a history, a checkpoint or a log.
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
    "scheme",
    "flow",
)


@stored_fields
class _ContentFieldsBase(TypedDict, total=False):
    text: str | None
    uri: str | None
    media_type: str | None
    call_id: str | None
    name: str | None
    arguments: str | dict[str, Any] | None
    result: Any
    message: str | None
    error_code: str | None
    usage_details: dict[str, Any] | None
    id: str | None
    approved: bool | None
    protected_data: str | None
    scheme: str | None
    flow: AuthorizationFlow | None
    additional_properties: dict[str, Any] | None


@stored_fields
class StoredFunctionCall(_ContentFieldsBase, total=False):
    """The function call inside an approval request or response (it holds no call itself)."""

    type: Required[Literal["function_call"]]


@stored_fields
class StoredContent(_ContentFieldsBase, total=False):
    """A content as :meth:`Content.to_dict` writes it."""

    type: Required[ContentType]
    function_call: StoredFunctionCall | None


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
        "credentials",
        "error_code",
        "exception",
        "flow",
        "function_call",
        "id",
        "media_type",
        "message",
        "name",
        "protected_data",
        "raw_representation",
        "result",
        "scheme",
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
        arguments: str | Mapping[str, object] | None = None,
        result: Any = None,
        exception: BaseException | None = None,
        message: str | None = None,
        error_code: str | None = None,
        usage_details: UsageDetails | None = None,
        id: str | None = None,
        function_call: Content | None = None,
        approved: bool | None = None,
        protected_data: str | None = None,
        scheme: str | None = None,
        flow: AuthorizationFlow | None = None,
        credentials: Mapping[str, str] | None = None,
        additional_properties: dict[str, Any] | None = None,
        raw_representation: object = None,
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
        self.scheme = scheme
        self.flow: AuthorizationFlow | None = flow
        self.credentials: Mapping[str, str] | None = credentials
        self.additional_properties = additional_properties
        self.raw_representation = raw_representation

    # region factories

    @classmethod
    def from_text(cls, text: str, **kwargs: Any) -> Self:
        """Plain text."""
        if kwargs or cls is not Content:
            return cls("text", text=text, **kwargs)
        content = _unset_content("text")
        content.text = text
        return content  # pyright: ignore[reportReturnType]  # cls is Content

    @classmethod
    def from_text_reasoning(cls, text: str, **kwargs: Any) -> Self:
        """Reasoning text a model exposes beside its answer."""
        return cls("text_reasoning", text=text, **kwargs)

    @classmethod
    def from_data(
        cls, data: bytes, media_type: str, *, name: str | None = None, **kwargs: Any
    ) -> Self:
        """Binary data (an image, a file), kept as a base64 `data:` URI.

        Args:
            data: The bytes.
            media_type: Their media type, such as `"image/png"`.
            name: The file's name, such as `"chart.png"`, kept in `name`.

        Example:
            >>> Content.from_data(b"a,b", "text/csv", name="t.csv").name
            't.csv'
        """
        encoded = base64.b64encode(data).decode("ascii")
        return cls(
            "data",
            uri=f"data:{media_type};base64,{encoded}",
            media_type=media_type,
            name=name,
            **kwargs,
        )

    @classmethod
    def from_uri(
        cls, uri: str, media_type: str | None = None, *, name: str | None = None, **kwargs: Any
    ) -> Self:
        """A reference to content elsewhere; a `data:` URI becomes `data` content.

        Args:
            uri: Where the content is.
            media_type: Its media type, when known.
            name: The file's name, such as `"report.pdf"`, kept in `name`.
        """
        if uri.startswith("data:"):
            header = uri[5:].split(",", 1)[0]
            return cls(
                "data",
                uri=uri,
                media_type=media_type or header.split(";")[0],
                name=name,
                **kwargs,
            )
        return cls("uri", uri=uri, media_type=media_type, name=name, **kwargs)

    @classmethod
    def from_json_value(
        cls, value: Any, *, media_type: str = _JSON_MEDIA_TYPE, **kwargs: Any
    ) -> Self:
        """Structured data: a JSON value, kept as `text` content holding its JSON.

        A model reads the JSON text; :attr:`json_value` gives the value back. Protocols
        that carry structured data (A2A data parts) map it to and from this content.

        Args:
            value: Any JSON value (dict, list, string, number, bool or `None`).
            media_type: A JSON media type: `application/json` or one ending in `+json`.

        Raises:
            ContentError: `value` is not JSON, or `media_type` is not a JSON media type.

        Example:
            >>> data = Content.from_json_value({"total": 3})
            >>> (data.text, data.media_type, data.json_value)
            ('{"total": 3}', 'application/json', {'total': 3})
        """
        if not _is_json_media_type(media_type):
            raise ContentError(
                f"from_json_value() needs a JSON media type (application/json or one ending in "
                f"+json), got {media_type!r}"
            )
        try:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as error:
            raise ContentError(f"from_json_value() needs a JSON value: {error}") from None
        return cls("text", text=text, media_type=media_type, **kwargs)

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
        arguments: str | Mapping[str, object] | None = None,
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
        if kwargs or cls is not Content:
            return cls(
                "function_result", call_id=call_id, result=result, exception=exception, **kwargs
            )
        content = _unset_content("function_result")
        content.call_id = call_id
        content.result = result
        content.exception = exception
        return content  # pyright: ignore[reportReturnType]  # cls is Content

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

    @classmethod
    def from_authorization_request(
        cls,
        *,
        id: str,
        description: str,
        scheme: str = "bearer",
        url: str | None = None,
        flow: AuthorizationFlow = "in_band",
        function_call: Content | None = None,
        reason: str | None = None,
        **kwargs: Any,
    ) -> Self:
        """A request for the caller's authorization, such as a credential a tool needs.

        The description is kept in `text`, the URL in `uri` and the reason in `message`.

        Args:
            id: The request's id (for a tool, its call id); the answer names it.
            description: What is needed, for a person ("A GitHub token that can read
                repositories").
            scheme: The kind of credential, such as `"bearer"`, `"api_key"`, `"basic"` or
                `"oauth2"`.
            url: Where to get the credential or to authorize (an OAuth consent page).
            flow: `"in_band"`: the answer carries the credentials;
                `"out_of_band"`: the person authorizes at `url` and the answer only says so.
            function_call: The tool call waiting for the authorization.
            reason: Why earlier credentials were not accepted, if they were not.

        Raises:
            ContentError: `flow` is neither `"in_band"` nor `"out_of_band"`.

        Example:
            >>> request = Content.from_authorization_request(
            ...     id="c1", description="A GitHub token", scheme="bearer"
            ... )
            >>> request.user_input_request
            True
        """
        if flow not in _AUTHORIZATION_FLOWS:
            raise ContentError(f'flow must be "in_band" or "out_of_band", got {flow!r}')
        return cls(
            "authorization_request",
            id=id,
            text=description,
            scheme=scheme,
            uri=url,
            flow=flow,
            function_call=function_call,
            message=reason,
            **kwargs,
        )

    @classmethod
    def from_authorization_response(
        cls,
        *,
        id: str,
        credentials: Mapping[str, str] | None = None,
        approved: bool = True,
        function_call: Content | None = None,
        **kwargs: Any,
    ) -> Self:
        """The caller's answer to a :meth:`from_authorization_request` content.

        The credentials live only in memory: `to_dict()` leaves them out, so they never
        reach a history, a checkpoint or a session store, and `repr()` does not show them.

        Args:
            id: The id of the request answered.
            credentials: The credentials, names to strings (`{"token": "..."}`); none for
                an out-of-band flow the person completed.
            approved: `False` declines: the waiting call does not run.
            function_call: The tool call waiting for the authorization.

        Raises:
            ContentError: `credentials` is not a mapping of strings to strings, or it is
                given with `approved=False`.
        """
        if credentials is not None:
            credentials = _checked_credentials(credentials)
            if not approved:
                raise ContentError(
                    "a declined authorization (approved=False) carries no credentials"
                )
        return cls(
            "authorization_response",
            id=id,
            credentials=credentials,
            approved=approved,
            function_call=function_call,
            **kwargs,
        )

    # endregion

    @property
    def json_value(self) -> Any:
        """The value of structured-data content (see :meth:`from_json_value`).

        Raises:
            ContentError: This is not text content with a JSON media type, or its text is
                not valid JSON.
        """
        if self.type != "text" or not _is_json_media_type(self.media_type):
            raise ContentError(
                f"json_value needs text content with a JSON media type (see from_json_value), not "
                f"{self.type!r} content with media type {self.media_type!r}"
            )
        try:
            return json.loads(self.text or "")
        except (ValueError, RecursionError) as error:
            raise ContentError(f"the content's text is not valid JSON: {error}") from None

    @property
    def user_input_request(self) -> bool:
        """Whether this content asks the caller for input (an approval or authorization
        request)."""
        return self.type in ("function_approval_request", "authorization_request")

    def to_authorization_response(
        self, credentials: Mapping[str, str] | None = None, *, approved: bool = True
    ) -> Content:
        """Answer this authorization request.

        Args:
            credentials: The credentials asked for (an in-band request), such as
                `{"token": "..."}`; none once an out-of-band flow is complete.
            approved: `False` declines: the waiting call does not run.

        Raises:
            ContentError: This content is not an authorization request, or the credentials
                are not a mapping of strings to strings.

        Example:
            >>> request = Content.from_authorization_request(id="c1", description="A token")
            >>> answer = request.to_authorization_response({"token": "s3cret"})
            >>> "s3cret" in str(answer.to_dict())
            False
        """
        if self.type != "authorization_request" or not self.id:
            raise ContentError(
                f"to_authorization_response() needs an authorization_request content, "
                f"not {self.type!r} content"
            )
        return Content.from_authorization_response(
            id=self.id,
            credentials=credentials,
            approved=approved,
            function_call=self.function_call,
        )

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
        if arguments is None:
            return {}
        if isinstance(arguments, str):
            if not arguments:
                return {}
            try:
                parsed = json.loads(arguments)
            except json.JSONDecodeError as error:
                raise ContentError(
                    f"arguments of the call to {self.name!r} are not valid JSON ({error.msg} "
                    f"at position {error.pos}): {arguments[:200]!r}"
                ) from None
            except RecursionError:
                raise ContentError(
                    f"arguments of the call to {self.name!r} are nested too deeply to be read "
                    "as JSON; send a flatter object"
                ) from None
        else:
            parsed = arguments
        if type(parsed) not in _DICT and not isinstance(parsed, Mapping):
            raise ContentError(
                f"arguments of the call to {self.name!r} must be a JSON object, "
                f"got {type(parsed).__name__}"
            )
        return dict(parsed)  # pyright: ignore[reportUnknownArgumentType]

    def get_data_bytes(self) -> bytes:
        """The decoded bytes of `data` content."""
        if self.type != "data" or not self.uri or ";base64," not in self.uri:
            raise ContentError(f"{self.type!r} content holds no base64 data")
        return base64.b64decode(self.uri.split(";base64,", 1)[1])

    # region merging (streaming)

    def can_merge(self, other: Content) -> bool:
        """Whether `other` continues this content in a stream (same text kind or call).

        Text continues text of the same media type and name; structured data
        (:meth:`from_json_value`) is always a whole piece of its own. A reasoning content
        that carries protected data is complete.
        """
        if self.type != other.type:
            return False
        if self.type == "text":
            media_type = self.media_type
            return (
                media_type == other.media_type
                and self.name == other.name
                and (media_type is None or not _is_json_media_type(media_type))
            )
        if self.type == "text_reasoning":
            # Protected data (a signature, encrypted reasoning) closes a reasoning block:
            # what follows is the next block, which must go back to its provider apart.
            return not self.protected_data
        if self.type == "function_call":
            return other.call_id in (None, "", self.call_id)
        return False

    def merge(self, other: Content) -> Content:
        """A new content: this one continued by `other` (see :meth:`can_merge`)."""
        merged = self.copy()
        extend_content(merged, other)
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
        data: dict[str, object] = {"type": self.type}
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
            SerializationError: `data` is not a content dict; the message names the field.
        """
        content_type = data.get("type") if isinstance(data, Mapping) else None  # pyright: ignore[reportUnnecessaryIsInstance]
        if isinstance(content_type, str) and content_type not in _CONTENT_TYPES:
            raise SerializationError(
                f"unknown content type {content_type!r}; expected one of {sorted(_CONTENT_TYPES)}"
            )
        return content_from_stored(check_fields(StoredContent, data, kind="content"))

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


def _unset_content(content_type: ContentType) -> Content:
    """A `Content` of `content_type` with every other field None, as `Content(content_type)`
    builds it but without filling twenty keyword defaults (the costly part of a call of the
    constructor; a run makes a few contents per turn)."""
    content = _new_object(Content)
    content.type = content_type
    content.text = content.uri = content.media_type = content.call_id = content.name = None
    content.arguments = content.result = content.exception = content.message = None
    content.error_code = content.usage_details = content.id = content.function_call = None
    content.approved = content.protected_data = content.scheme = content.flow = None
    content.credentials = content.additional_properties = content.raw_representation = None
    return content


_new_object = object.__new__


def content_from_stored(data: Mapping[str, Any]) -> Content:
    """A content from a dict already checked against :class:`StoredContent`."""
    fields = dict(data)
    call = fields.pop("function_call", None)
    content = Content(fields.pop("type"), **fields)
    if call is not None:
        content.function_call = content_from_stored(call)
    return content


def _checked_credentials(credentials: object) -> dict[str, str]:
    """`credentials` as a dict of strings to strings (a copy the caller cannot change)."""
    if not isinstance(credentials, Mapping):
        raise ContentError(
            'credentials must be a mapping of names to strings, such as {"token": "..."}, '
            f"not {type(credentials).__name__}"
        )
    items = cast("Mapping[object, object]", credentials)
    for key, value in items.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise ContentError(
                f'credentials must map names to strings, such as {{"token": "..."}}; '
                f"the entry {key!r} holds a {type(value).__name__}"
            )
    return {str(k): str(v) for k, v in items.items()}


def extend_content(content: Content, other: Content) -> None:
    """Continue `content` by `other` in place (see `Content.can_merge`).

    A stream's fold extends its own copy of a content chunk after chunk, where
    `Content.merge` would copy it for each.
    """
    if content.type == "function_call":
        content.arguments = _join_arguments(content.arguments, other.arguments)
        content.name = content.name or other.name
        return
    content.text = (content.text or "") + (other.text or "")
    if other.protected_data:
        content.protected_data = other.protected_data


def _join_arguments(
    first: str | Mapping[str, object] | None, second: str | Mapping[str, object] | None
) -> str | Mapping[str, Any] | None:
    if second is None or second == "":
        return first
    if first is None or first == "":
        return second
    if isinstance(first, str) and isinstance(second, str):
        return first + second
    raise ContentError("cannot merge streamed function-call arguments of mixed kinds")


def _jsonable(value: object) -> Any:
    """Tool results are usually JSON already; anything else is stored as its string form."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Content):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in cast("Mapping[object, object]", value).items()}
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        return [_jsonable(v) for v in cast("Sequence[object]", value)]
    to_json = getattr(value, "model_dump", None)
    if callable(to_json):
        return to_json(mode="json")
    return str(value)
