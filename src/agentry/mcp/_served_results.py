"""What a served agent or tool answers over MCP: its text, and its images and audio as
MCP content blocks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from agentry.tools import tool_result_contents, tool_result_to_text

if TYPE_CHECKING:
    from mcp_types import CallToolResult, ContentBlock

    from agentry.types import AgentResponse, Content

__all__ = ["agent_answer", "text_answer", "tool_answer"]


def agent_answer(response: AgentResponse) -> CallToolResult:
    """An agent's reply: its text, then the images, audio and links of its own messages
    (not those of the tools it called)."""
    media = [
        content
        for message in response.messages
        if message.role == "assistant"
        for content in message.contents
        if content.type in ("data", "uri")
    ]
    return _answer(response.text, media)


def tool_answer(result: Any) -> CallToolResult:
    """A function tool's result: text, or its contents (text, images, audio) as blocks."""
    contents = tool_result_contents(result)
    if contents is None:
        return text_answer(tool_result_to_text(result))
    text = "\n".join(c.text or "" for c in contents if c.type == "text")
    return _answer(text, [c for c in contents if c.type != "text"])


def text_answer(text: str, *, is_error: bool = False) -> CallToolResult:
    """A result of one text block."""
    from mcp_types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)


def _answer(text: str, media: Iterable[Content]) -> CallToolResult:
    from mcp_types import CallToolResult, TextContent

    blocks: list[ContentBlock] = [TextContent(type="text", text=text)] if text else []
    blocks.extend(_block(content) for content in media)
    if not blocks:
        blocks.append(TextContent(type="text", text=""))
    return CallToolResult(content=blocks)


def _block(content: Content) -> ContentBlock:
    """Data as an image or audio block, a URI as a resource link; other data is
    described in text (MCP has no block for it without a resource URI)."""
    from mcp_types import AudioContent, ImageContent, ResourceLink, TextContent

    media_type = content.media_type or ""
    if content.type == "data" and content.uri and ";base64," in content.uri:
        data = content.uri.split(";base64,", 1)[1]
        if media_type.startswith("image/"):
            return ImageContent(type="image", data=data, mime_type=media_type)
        if media_type.startswith("audio/"):
            return AudioContent(type="audio", data=data, mime_type=media_type)
    if content.type == "uri" and content.uri:
        name = content.uri.rstrip("/").rsplit("/", 1)[-1] or content.uri
        return ResourceLink(
            type="resource_link", uri=content.uri, name=name, mime_type=media_type or None
        )
    return TextContent(type="text", text=tool_result_to_text(content))  # described
