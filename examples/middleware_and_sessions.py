"""Middleware around runs and tool calls, and a conversation kept in a SQLite file."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from agentry import (
    Agent,
    AgentContext,
    FunctionInvocationContext,
    SQLiteHistoryProvider,
    agent_middleware,
    function_middleware,
    tool,
)
from agentry.clients.scripted import ScriptedChatClient


@tool
def remember(fact: str) -> str:
    """Remember a fact."""
    return f"noted: {fact}"


@agent_middleware
async def log_runs(context: AgentContext, call_next: Any) -> None:
    print(f"> {context.messages[-1].text}")
    await call_next()
    print(f"< {context.result.text}")


@function_middleware
async def log_tools(context: FunctionInvocationContext, call_next: Any) -> None:
    await call_next()
    print(f"  tool {context.function.name}{context.arguments} -> {context.result}")


async def main(directory: Path) -> list[str]:
    history = SQLiteHistoryProvider(directory / "history.db")
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("remember", {"fact": "Ada likes tea"}),
            "I will remember that.",
            "You like tea.",
        ]
    )
    agent = Agent(
        client=client,
        tools=[remember],
        middleware=[log_runs, log_tools],
        context_providers=[history],
    )
    session = agent.create_session(session_id="ada")
    await agent.run("I like tea.", session=session)
    await agent.run("What do I like?", session=session)
    stored = [m.text or m.contents[0].type for m in await history.get_messages("ada")]
    await history.close()
    return stored


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        print(asyncio.run(main(Path(folder))))
