"""Tool results made of contents: a tool may return an image (data content with its media
type) with its text, for clients that can show a model images."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from agentry.types import Content

__all__ = ["describe_content", "tool_result_contents"]

_RESULT_CONTENT_TYPES = frozenset({"text", "data", "uri"})


def tool_result_contents(result: Any) -> list[Content] | None:
    """The contents of a tool result made of them (a `Content`, or a list of text, data
    and uri contents, live or as a stored session holds them); None for other results.

    Example:
        >>> from agentry import Content
        >>> [c.type for c in tool_result_contents([Content.from_text("a chart:"),
        ...     Content.from_data(b"...", "image/png")])]
        ['text', 'data']
        >>> tool_result_contents({"temperature": 21}) is None
        True
    """
    from agentry.errors import SerializationError
    from agentry.types import Content

    if isinstance(result, Content):
        return [result]
    if not isinstance(result, Sequence) or isinstance(result, (str, bytes, bytearray)):
        return None
    items = cast("Sequence[Any]", result)
    contents: list[Content] = []
    for item in items:
        if isinstance(item, Content):
            contents.append(item)
        elif isinstance(item, Mapping) and _is_stored_content(cast("Mapping[str, Any]", item)):
            try:
                contents.append(Content.from_dict(cast("Mapping[str, Any]", item)))
            except (SerializationError, TypeError, ValueError):
                return None
        else:
            return None
    return contents or None


def _is_stored_content(item: Mapping[str, Any]) -> bool:
    return item.get("type") in _RESULT_CONTENT_TYPES


def describe_content(content: Content) -> str:
    """A content as a text-only model reads it: text as it is, media described."""
    if content.type == "text":
        return content.text or ""
    media_type = content.media_type or "unknown type"
    if content.type == "data":
        try:
            size = f", {len(content.get_data_bytes())} bytes"
        except (ValueError, TypeError):  # not base64: the size is unknown
            size = ""
        kind = media_type.split("/", 1)[0] if "/" in media_type else "data"
        return f"[{kind} {media_type}{size}]"
    if content.type == "uri":
        return f"[{media_type} at {content.uri}]"
    return f"[{content.type} content]"
