"""agentry messages as Messages API input: a system prompt and alternating turns.

System messages become the `system` prompt. Tool results go back in a user turn, as the
API wants, and neighbouring turns of one role are joined into one. Thinking blocks the
API returned go back unchanged, with their signatures, so a model that thinks keeps its
thread across tool calls.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

from agentry.clients.wire_format import function_result_text
from agentry.errors import ChatClientError
from agentry.types import Content, Message

__all__ = ["THINKING_BLOCK_KEY", "split_system", "to_wire_messages"]

THINKING_BLOCK_KEY = "anthropic_block"
"""The key, in a reasoning content's `additional_properties`, of the Messages API block it
came from ("thinking" or "redacted_thinking"); only such reasoning goes back to the API."""

_IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
_SUPPORTED = "images (JPEG, PNG, GIF, WebP), PDF documents and plain-text documents"


def split_system(messages: Sequence[Message]) -> tuple[list[str], list[Message]]:
    """The texts of the system messages, and the other messages."""
    system = [m.text for m in messages if m.role == "system" and m.text]
    return system, [m for m in messages if m.role != "system"]


def to_wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages API turns for agentry's (non-system) messages.

    Raises:
        ChatClientError: A message holds content the API cannot take, such as audio.
    """
    turns: list[dict[str, Any]] = []
    for message in messages:
        for role, block in _blocks(message):
            if turns and turns[-1]["role"] == role:
                content = cast(list[dict[str, Any]], turns[-1]["content"])
                # Tool results lead their turn, before any text of the same turn.
                if block["type"] == "tool_result":
                    position = sum(1 for b in content if b["type"] == "tool_result")
                    content.insert(position, block)
                else:
                    content.append(block)
            else:
                turns.append({"role": role, "content": [block]})
    return turns


def _blocks(message: Message) -> list[tuple[str, dict[str, Any]]]:
    """(role, block) pairs of one message; tool results always go in a user turn."""
    assistant = message.role == "assistant"
    role = "assistant" if assistant else "user"
    pairs: list[tuple[str, dict[str, Any]]] = []
    for content in message.contents:
        kind = content.type
        if kind == "text" and content.text:
            pairs.append((role, {"type": "text", "text": content.text}))
        elif kind == "text_reasoning" and assistant:
            block = _thinking_block(content)
            if block is not None:
                pairs.append((role, block))
        elif kind == "function_call" and assistant:
            pairs.append((role, _tool_use_block(content)))
        elif kind == "function_result":
            pairs.append(("user", _tool_result_block(content)))
        elif kind in ("data", "uri") and not assistant:
            pairs.append((role, _media_block(content)))
    return pairs


def _thinking_block(content: Content) -> dict[str, Any] | None:
    kind = (content.additional_properties or {}).get(THINKING_BLOCK_KEY)
    if kind == "thinking":
        return {
            "type": "thinking",
            "thinking": content.text or "",
            "signature": content.protected_data or "",
        }
    if kind == "redacted_thinking" and content.protected_data:
        return {"type": "redacted_thinking", "data": content.protected_data}
    return None  # another provider's reasoning means nothing to this API


def _tool_use_block(content: Content) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": content.call_id,
        "name": content.name,
        "input": _arguments(content),
    }


def _arguments(content: Content) -> dict[str, Any]:
    arguments = content.arguments
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if not arguments:
        return {}
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError:
        # The model wrote arguments that are not JSON; the call failed and its result
        # says so, but the turn must still be sent back as an object.
        return {"arguments": arguments}
    return cast(dict[str, Any], parsed) if isinstance(parsed, dict) else {"value": parsed}


def _tool_result_block(content: Content) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": content.call_id,
        "content": function_result_text(content),
    }
    if content.exception is not None:
        block["is_error"] = True
    return block


def _media_block(content: Content) -> dict[str, Any]:
    """An image or document block for data or a link.

    Raises:
        ChatClientError: The media type is not one the API takes.
    """
    uri = content.uri or ""
    media_type = content.media_type or ""
    filename = (content.additional_properties or {}).get("filename")
    if content.type == "data":
        data = uri.split(";base64,", 1)[-1]
        if media_type in _IMAGE_TYPES:
            return {"type": "image", "source": _base64(media_type, data)}
        if media_type == "application/pdf":
            return _document(_base64(media_type, data), filename)
        if media_type.startswith("text/"):
            text = content.get_data_bytes().decode("utf-8", errors="replace")
            source = {"type": "text", "media_type": "text/plain", "data": text}
            return _document(source, filename)
    elif media_type.startswith("image/") or not media_type:
        return {"type": "image", "source": {"type": "url", "url": uri}}
    elif media_type == "application/pdf":
        return _document({"type": "url", "url": uri}, filename)
    raise ChatClientError(
        f"the Anthropic Messages API takes {_SUPPORTED}; {content.type} content of type "
        f"{media_type or 'unknown'!r} cannot be sent (convert it, or send it as text)"
    )


def _base64(media_type: str, data: str) -> dict[str, Any]:
    return {"type": "base64", "media_type": media_type, "data": data}


def _document(source: dict[str, Any], filename: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "document", "source": source}
    if isinstance(filename, str) and filename:
        block["title"] = filename
    return block
