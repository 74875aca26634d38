"""A deterministic agent for contract tests and the `serve a2a` subprocess test.

Its model is scripted by rules: "add A and B" calls the `add` tool, "delete PATH" calls a
tool that needs approval, "count" says how many user messages it has seen, "slow" takes a
long time, and anything else is echoed.
"""

from __future__ import annotations

import asyncio
import re

from agentry import Agent, ChatResponse, Message
from agentry.clients.scripted import ScriptedChatClient
from agentry.types import ChatOptions

from .helpers import add, delete_file


async def respond(messages: list[Message], options: ChatOptions) -> ChatResponse | str:
    """The scripted model's rules."""
    del options
    last = messages[-1]
    results = [c for c in last.contents if c.type == "function_result"]
    if results:
        return f"Tool result: {results[0].result}"
    text = last.text.lower()
    numbers = [int(n) for n in re.findall(r"-?\d+", text)]
    if text.startswith("add") and len(numbers) == 2:
        return ScriptedChatClient.function_call("add", {"a": numbers[0], "b": numbers[1]})
    if text.startswith("delete "):
        return ScriptedChatClient.function_call("delete_file", {"path": text.split()[1]})
    if text.startswith("count"):
        return f"seen {sum(1 for m in messages if m.role == 'user')} user messages"
    if text.startswith("slow"):
        await asyncio.sleep(60)
        return "finally done"
    return f"echo: {last.text}"


def build() -> Agent:
    """A fresh demo agent."""
    return Agent(
        client=ScriptedChatClient([respond] * 10_000, chunk_size=6),
        name="demo",
        description="Adds numbers, deletes files with approval, counts, echoes.",
        tools=[add, delete_file],
    )


agent = build()
