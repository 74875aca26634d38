"""A small MCP server for the tests: tools, a prompt, a resource, sampling and faults.

Run it with `python basic.py` (stdio) or `python basic.py http PORT` (streamable HTTP).
"""

from __future__ import annotations

import base64
import json
import os
import sys
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context, Image
from mcp.server.mcpserver.resolve import Resolve, Sample
from mcp_types import CreateMessageResult, SamplingMessage, TextContent

server = MCPServer("basic", instructions="Tools for the tests.")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@server.tool()
def echo_arguments(
    text: str, context: str = "", options: dict[str, Any] | None = None, session: str = ""
) -> str:
    """Echo the arguments the server received, as JSON."""
    received = {"text": text, "context": context, "options": options, "session": session}
    return json.dumps(received, sort_keys=True)


@server.tool()
def fail(reason: str) -> str:
    """Always fails."""
    raise ValueError(f"cannot do it: {reason}")


@server.tool()
async def sleep(seconds: float) -> str:
    """Sleep, then answer."""
    import asyncio

    await asyncio.sleep(seconds)
    return "awake"


PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
"""A 1x1 PNG."""


@server.tool(structured_output=False)
def chart() -> list[Any]:
    """The week's sales as a chart (an image)."""
    return ["The week's sales:", Image(data=PIXEL, format="png")]


@server.tool()
def die() -> str:
    """The server process exits in the middle of the call."""
    os._exit(3)


def summary_request(text: str) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=text))],
        max_tokens=5000,
        system_prompt="Summarise in one line.",
    )


@server.tool()
def summarise(text: str, summary: Annotated[CreateMessageResult, Resolve(summary_request)]) -> str:
    """Ask the client's model to summarise `text` (sampling)."""
    content = summary.content
    return content.text if isinstance(content, TextContent) else str(content)


@server.tool()
async def add_tool(ctx: Context) -> str:
    """Add the tool `multiply` and tell the client the tool list changed."""

    def multiply(a: int, b: int) -> int:
        """Multiply two numbers."""
        return a * b

    server.add_tool(multiply)
    await ctx.notify_tools_changed()
    return "added multiply"


@server.tool()
def tenant(ctx: Context) -> str:
    """The X-Tenant header of the request (over HTTP)."""
    return (ctx.headers or {}).get("x-tenant", "")


@server.prompt()
def review(code: str) -> str:
    """Review a piece of code."""
    return f"Please review this code:\n{code}"


@server.resource("notes://today")
def today() -> str:
    """Today's notes."""
    return "Buy bread."


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
