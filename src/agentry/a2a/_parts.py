"""Mapping between A2A parts and messages and agentry contents and messages.

A2A text parts become text contents, raw bytes become `data` contents, URLs become `uri`
contents, and structured `data` parts become text contents holding the JSON (so a model
can read them) that remember the original value for the way back.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from a2a.types import Message as A2AMessage
from a2a.types import Part, Role
from google.protobuf import json_format, struct_pb2

from agentry.types import Content, Message

__all__ = [
    "APPROVAL_REQUEST_KIND",
    "DATA_PROPERTY",
    "INFO_REQUEST_KIND",
    "approval_request_data",
    "contents_to_parts",
    "content_to_part",
    "data_of",
    "info_request_data",
    "message_to_agentry",
    "part_to_content",
    "parts_to_contents",
    "to_a2a_message",
]

DATA_PROPERTY = "a2a_data"
"""Key in a text content's `additional_properties` that holds an A2A data part's value."""

APPROVAL_REQUEST_KIND = "function_approval_request"
"""The `kind` of the data part that asks the user to approve a tool call."""

INFO_REQUEST_KIND = "request_info"
"""The `kind` of the data part that asks the user for information (a workflow's request)."""

_FILENAME_PROPERTY = "filename"


def part_to_content(part: Part) -> Content | None:
    """One A2A part as an agentry content, or `None` for a part that holds nothing."""
    properties: dict[str, Any] = {}
    if part.filename:
        properties[_FILENAME_PROPERTY] = part.filename
    media_type = part.media_type or None
    kind = part.WhichOneof("content")
    if kind == "text":
        return Content.from_text(part.text, additional_properties=properties or None)
    if kind == "raw":
        return Content.from_data(
            part.raw,
            media_type or "application/octet-stream",
            additional_properties=properties or None,
        )
    if kind == "url":
        return Content.from_uri(part.url, media_type, additional_properties=properties or None)
    if kind == "data":
        value = data_of(part)
        properties[DATA_PROPERTY] = value
        return Content.from_text(
            json.dumps(value, ensure_ascii=False, sort_keys=True),
            media_type=media_type or "application/json",
            additional_properties=properties,
        )
    return None


def parts_to_contents(parts: Iterable[Part]) -> list[Content]:
    """A2A parts as agentry contents, leaving out parts that hold nothing (or empty text)."""
    return [
        c
        for c in (part_to_content(p) for p in parts)
        if c is not None and not (c.type == "text" and not c.text)
    ]


def data_of(part: Part) -> Any:
    """The JSON value of a data part, with whole numbers as `int` again."""
    return _whole_numbers(json_format.MessageToDict(part.data))


def message_to_agentry(message: A2AMessage) -> Message:
    """An A2A message as an agentry message (`user` or `assistant`)."""
    role = "assistant" if message.role == Role.ROLE_AGENT else "user"
    return Message(
        role,
        parts_to_contents(message.parts),
        message_id=message.message_id or None,
    )


def content_to_part(content: Content) -> Part | None:
    """One agentry content as an A2A part, or `None` for contents A2A does not carry.

    Function calls and results, reasoning and usage stay inside the agent; approval
    requests become data parts (see :func:`approval_request_data`).
    """
    properties = content.additional_properties or {}
    filename = str(properties.get(_FILENAME_PROPERTY) or "")
    if content.type == "text":
        if DATA_PROPERTY in properties:
            return _data_part(properties[DATA_PROPERTY], content.media_type)
        return Part(text=content.text or "", media_type=content.media_type or "")
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
        return {k: _whole_numbers(v) for k, v in items.items()}
    if isinstance(value, list):
        return [_whole_numbers(v) for v in cast("list[Any]", value)]
    return value
