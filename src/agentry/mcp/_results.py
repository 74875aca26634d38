"""MCP results as what the model reads."""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING, Any

from agentry.types import Content, Message

if TYPE_CHECKING:
    from mcp_types import CallToolResult, GetPromptResult, ReadResourceResult

__all__ = ["prompt_messages", "resource_text", "tool_result_text", "tool_result_value"]

MEDIA_BLOCKS = ("image", "audio")


def tool_result_value(result: CallToolResult) -> str | list[Content]:
    """A tool result as an MCP tool's function returns it to the model.

    Text when the result is text only (or an error: text starting `Error:`). A result with
    images or audio becomes contents: its text blocks as text, its media as data with
    their media type, which clients that accept images pass to the model as images (the
    others describe them in text).
    """
    if result.is_error or not any(_is_media(block) for block in result.content):
        return tool_result_text(result)
    contents: list[Content] = []
    for block in result.content:
        media = _media_content(block)
        if media is not None:
            contents.append(media)
        elif text := _block_text(block):
            contents.append(Content.from_text(text))
    return contents


def tool_result_text(result: CallToolResult) -> str:
    """The text of a tool result: its text blocks, other blocks described, or its
    structured content as JSON when it has no text. An error result starts `Error:`."""
    parts = [_block_text(block) for block in result.content]
    text = "\n".join(p for p in parts if p)
    if not text and result.structured_content is not None:
        text = json.dumps(result.structured_content, ensure_ascii=False)
    if result.is_error:
        return f"Error: {text or 'the MCP tool failed without a message'}"
    return text


def prompt_messages(result: GetPromptResult) -> list[Message]:
    """A prompt's messages as agentry messages."""
    messages: list[Message] = []
    for message in result.messages:
        block: Any = message.content
        if block.type == "text":
            content = Content.from_text(block.text)
        elif block.type in ("image", "audio"):
            content = Content.from_data(_decoded(block.data), media_type=block.mime_type)
        else:
            content = Content.from_text(_block_text(block))
        messages.append(Message(message.role, [content]))
    return messages


def resource_text(result: ReadResourceResult) -> str:
    """A resource's contents as text (binary parts described)."""
    parts: list[str] = []
    for item in result.contents:
        text = getattr(item, "text", None)
        if text is not None:
            parts.append(text)
        else:
            size = len(_decoded(getattr(item, "blob", "")))
            parts.append(f"[{item.mime_type or 'binary'} data, {size} bytes: {item.uri}]")
    return "\n".join(parts)


def _is_media(block: Any) -> bool:
    return _media_content(block) is not None


def _media_content(block: Any) -> Content | None:
    """An image or audio block (or an embedded image or audio resource) as data content;
    None for other blocks and for data that is not valid base64."""
    if block.type in MEDIA_BLOCKS:
        data, media_type = _decoded(block.data), block.mime_type
    elif block.type == "resource" and getattr(block.resource, "blob", None) is not None:
        data, media_type = _decoded(block.resource.blob), block.resource.mime_type or ""
        if not media_type.startswith(tuple(f"{kind}/" for kind in MEDIA_BLOCKS)):
            return None
    else:
        return None
    return Content.from_data(data, media_type) if data else None


def _block_text(block: Any) -> str:
    kind = block.type
    if kind == "text":
        return block.text
    if kind in ("image", "audio"):
        return f"[{kind} {block.mime_type}, {len(_decoded(block.data))} bytes]"
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        if text is not None:
            return text
        return f"[{resource.mime_type or 'binary'} resource {resource.uri}]"
    if kind == "resource_link":
        return f"[resource {block.uri}{f': {block.description}' if block.description else ''}]"
    return f"[{kind} content]"


def _decoded(data: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return b""
