"""Mapping between A2A parts and messages and agentry contents and messages.

A2A text parts become text contents, raw bytes become `data` contents, URLs become `uri`
contents (a part's filename is the content's `name`), and structured `data` parts become
`Content.from_json` contents: text holding the JSON, so a model can read them, whose
`json_value` is the part's value. On the way back, text content with a JSON media type
becomes a data part again.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from a2a.types import Message as A2AMessage
from a2a.types import Part, Role
from google.protobuf import json_format, struct_pb2

from agentry.errors import ContentError
from agentry.types import Content, Message

__all__ = [
    "APPROVAL_REQUEST_KIND",
    "AUTHORIZATION_REQUEST_KIND",
    "INFO_REQUEST_KIND",
    "METADATA_PROPERTY",
    "approval_request_data",
    "authorization_request_data",
    "contents_to_parts",
    "content_to_part",
    "data_of",
    "info_request_data",
    "message_to_agentry",
    "part_to_content",
    "parts_to_contents",
    "to_a2a_message",
]

APPROVAL_REQUEST_KIND = "function_approval_request"
"""The `kind` of the data part that asks the user to approve a tool call."""

AUTHORIZATION_REQUEST_KIND = "authorization_request"
"""The `kind` of the data part that asks the user for authorization (credentials, or an
out-of-band flow)."""

INFO_REQUEST_KIND = "request_info"
"""The `kind` of the data part that asks the user for information (a workflow's request)."""

METADATA_PROPERTY = "a2a_metadata"
"""Key of `Message.additional_properties` holding an A2A message's `metadata`."""

_JSON = "application/json"


def part_to_content(part: Part) -> Content | None:
    """One A2A part as an agentry content, or `None` for a part that holds nothing."""
    name = part.filename or None
    media_type = part.media_type or None
    kind = part.WhichOneof("content")
    if kind == "text":
        return Content.from_text(part.text, media_type=media_type, name=name)
    if kind == "raw":
        return Content.from_data(part.raw, media_type or "application/octet-stream", name=name)
    if kind == "url":
        return Content.from_uri(part.url, media_type, name=name)
    if kind == "data":
        value = data_of(part)
        try:
            return Content.from_json_value(value, media_type=media_type or _JSON, name=name)
        except ContentError:  # a data part labelled with a media type that is not JSON
            return Content.from_json_value(value, name=name)
    return None


def parts_to_contents(parts: Iterable[Part]) -> list[Content]:
    """A2A parts as agentry contents, leaving out parts that hold nothing (or empty text)."""
    return [
        c
        for c in (part_to_content(p) for p in parts)
        if c is not None and not (c.type == "text" and not c.text)
    ]


def data_of(part: Part) -> Any:
    """The JSON value of a data part, with whole numbers as `int` again and keys sorted
    (protobuf keeps no key order)."""
    return _whole_numbers(json_format.MessageToDict(part.data))


def message_to_agentry(message: A2AMessage) -> Message:
    """An A2A message as an agentry message (`user` or `assistant`)."""
    role = "assistant" if message.role == Role.ROLE_AGENT else "user"
    return Message(
        role,
        parts_to_contents(message.parts),
        message_id=message.message_id or None,
        additional_properties=_metadata_properties(message),
    )


def _metadata_properties(message: A2AMessage) -> dict[str, Any] | None:
    if not message.HasField("metadata") or not message.metadata.fields:
        return None
    return {METADATA_PROPERTY: _whole_numbers(json_format.MessageToDict(message.metadata))}


def content_to_part(content: Content) -> Part | None:
    """One agentry content as an A2A part, or `None` for contents A2A does not carry.

    Function calls and results, reasoning and usage stay inside the agent; approval and
    authorization requests become data parts (see :func:`approval_request_data` and
    :func:`authorization_request_data`); authorization answers, which may hold
    credentials, are never sent as content.
    """
    filename = content.name or ""
    if content.type == "text":
        try:
            part = _data_part(content.json_value, content.media_type)
        except ContentError:  # plain text, or text that only claims to be JSON
            return Part(
                text=content.text or "", media_type=content.media_type or "", filename=filename
            )
        part.filename = filename
        return part
    if content.type == "data":
        return Part(
            raw=content.get_data_bytes(), media_type=content.media_type or "", filename=filename
        )
    if content.type == "uri":
        return Part(url=content.uri or "", media_type=content.media_type or "", filename=filename)
    if content.type == "error":
        return Part(text=f"Error: {content.message or 'unknown error'}")
    if content.type == APPROVAL_REQUEST_KIND:
        return _data_part(approval_request_data(content), "application/json")
    if content.type == AUTHORIZATION_REQUEST_KIND:
        return _data_part(authorization_request_data(content), "application/json")
    if content.type == "function_call" and content.name == INFO_REQUEST_KIND:
        return _data_part(info_request_data(content), "application/json")
    return None


def contents_to_parts(contents: Iterable[Content]) -> list[Part]:
    """Agentry contents as A2A parts, leaving out what A2A does not carry."""
    return [p for p in (content_to_part(c) for c in contents) if p is not None]


def approval_request_data(request: Content) -> dict[str, Any]:
    """The data-part form of a tool-approval request: what would run, and how to answer."""
    call = request.function_call
    arguments: Any = {}
    if call is not None:
        try:
            arguments = call.parse_arguments()
        except ValueError:
            arguments = call.arguments
    return {
        "kind": APPROVAL_REQUEST_KIND,
        "id": request.id or "",
        "call_id": call.call_id if call is not None else "",
        "name": call.name if call is not None else "",
        "arguments": arguments,
    }


def authorization_request_data(request: Content) -> dict[str, Any]:
    """The data-part form of an authorization request: what is needed, and for which call."""
    data: dict[str, Any] = {
        "kind": AUTHORIZATION_REQUEST_KIND,
        "id": request.id or "",
        "scheme": request.scheme or "",
        "description": request.text or "",
        "flow": request.flow or "in_band",
    }
    if request.uri:
        data["url"] = request.uri
    if request.message:
        data["reason"] = request.message
    if request.function_call is not None:
        call = approval_request_data(
            Content.from_function_approval_request(id="", function_call=request.function_call)
        )
        data.update(call_id=call["call_id"], name=call["name"], arguments=call["arguments"])
    return data


def info_request_data(request: Content) -> dict[str, Any]:
    """The data-part form of a workflow's request for information."""
    try:
        arguments = request.parse_arguments()
    except ValueError:
        arguments = {}
    return {
        "kind": INFO_REQUEST_KIND,
        "id": request.call_id or "",
        "data": arguments.get("data"),
    }


def to_a2a_message(
    contents: Sequence[Content],
    *,
    role: Role = Role.ROLE_AGENT,
    context_id: str = "",
    task_id: str = "",
    extra_parts: Sequence[Part] = (),
) -> A2AMessage:
    """An A2A message with the parts of `contents` (and any `extra_parts`)."""
    return A2AMessage(
        message_id=uuid.uuid4().hex,
        role=role,
        context_id=context_id,
        task_id=task_id,
        parts=[*contents_to_parts(contents), *extra_parts],
    )


def _data_part(value: Any, media_type: str | None) -> Part:
    return Part(
        data=json_format.ParseDict(value, struct_pb2.Value()),
        media_type=media_type or "application/json",
    )


def _whole_numbers(value: Any) -> Any:
    """Protobuf keeps every number as a double; turn 3.0 back into 3."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        items = cast("Mapping[str, Any]", value)
        return {k: _whole_numbers(items[k]) for k in sorted(items)}
    if isinstance(value, list):
        return [_whole_numbers(v) for v in cast("list[Any]", value)]
    return value
