"""Sync tools run in worker threads: the calls of a turn overlap and the event loop stays free."""

from __future__ import annotations

import asyncio
import contextvars
import threading

from agentry import Agent, FunctionInvocationContext, tool
from agentry.clients.scripted import ScriptedChatClient

HANG_GUARD = 10  # seconds; only reached when the behaviour under test is broken


def _two_calls(first: str, second: str) -> ScriptedChatClient:
    calls = ScriptedChatClient.function_calls([(first, {}, "c1"), (second, {}, "c2")])
    return ScriptedChatClient([calls, "done"])


async def test_two_sync_tools_of_one_turn_run_at_the_same_time() -> None:
    both_running = threading.Barrier(2, timeout=HANG_GUARD)

    @tool
    def left() -> str:
        """Wait for the right one."""
        both_running.wait()  # breaks (and the tool fails) unless the other runs meanwhile
        return "left ok"

    @tool
    def right() -> str:
        """Wait for the left one."""
        both_running.wait()
        return "right ok"

    response = await Agent(client=_two_calls("left", "right"), tools=[left, right]).run("go")

    results = [c.result for c in response.messages[1].contents]
    assert results == ["left ok", "right ok"]


async def test_the_event_loop_keeps_running_while_a_sync_tool_blocks() -> None:
    released = threading.Event()

    @tool
    def wait_for_the_loop() -> bool:
        """Block until a task on the event loop releases it."""
        return released.wait(timeout=HANG_GUARD)

    async def release_from_the_loop() -> None:
        await asyncio.sleep(0)
        released.set()

    client = ScriptedChatClient([ScriptedChatClient.function_call("wait_for_the_loop"), "done"])
    agent = Agent(client=client, tools=[wait_for_the_loop])
    response, _ = await asyncio.gather(agent.run("go"), release_from_the_loop())

    assert response.messages[1].contents[0].result is True


async def test_a_tool_in_a_thread_sees_the_callers_context_variables_and_its_context() -> None:
    request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id")
    seen: dict[str, object] = {}

    @tool
    def inspect_call(context: FunctionInvocationContext) -> str:
        """Report what the call can see."""
        seen["request_id"] = request_id.get()
        seen["call_id"] = context.call_id
        seen["thread"] = threading.get_ident()
        return "ok"

    request_id.set("r-42")
    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("inspect_call", call_id="c9"), "done"]
    )
    await Agent(client=client, tools=[inspect_call]).run("go")

    assert seen["request_id"] == "r-42"
    assert seen["call_id"] == "c9"
    assert seen["thread"] != threading.get_ident()


async def test_run_inline_keeps_a_quick_sync_tool_on_the_event_loop() -> None:
    threads: list[int] = []

    @tool(run_inline=True)
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        threads.append(threading.get_ident())
        return a + b

    client = ScriptedChatClient([ScriptedChatClient.function_call("add", {"a": 1, "b": 2}), "3"])
    response = await Agent(client=client, tools=[add]).run("1 + 2?")

    assert response.messages[1].contents[0].result == 3
    assert threads == [threading.get_ident()]
    assert add.run_inline
