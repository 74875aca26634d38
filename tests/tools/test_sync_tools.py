"""Sync tools run in worker threads: the calls of a turn overlap and the event loop stays free."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

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


async def test_sync_tools_run_in_the_pool_the_loop_is_given_with_the_callers_context() -> None:
    request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id")
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tool-pool")
    asyncio.get_running_loop().set_default_executor(pool)
    seen: list[tuple[str, str]] = []

    @tool
    def where(city: str) -> str:
        """Report the thread and the request."""
        seen.append((threading.current_thread().name, request_id.get()))
        return f"sunny in {city}"

    @tool
    def broken() -> str:
        """Fail."""
        raise ValueError("no forecast today")

    request_id.set("r-7")
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("where", {"city": "Paris"}),
            ScriptedChatClient.function_call("broken"),
            "done",
        ]
    )
    response = await Agent(client=client, tools=[where, broken]).run("go")

    results = [c for m in response.messages if m.role == "tool" for c in m.contents]
    assert results[0].result == "sunny in Paris"
    assert isinstance(results[1].exception, ValueError)
    assert str(results[1].exception) == "no forecast today"
    assert len(seen) == 1
    assert seen[0][0].startswith("tool-pool")
    assert seen[0][1] == "r-7"


async def test_a_sync_call_cancelled_before_a_thread_takes_it_up_never_runs() -> None:
    queued = asyncio.Event()

    class OneThread(ThreadPoolExecutor):
        def submit(  # pyright: ignore[reportIncompatibleMethodOverride]
            self, fn: Callable[..., object], /, *args: object, **kwargs: object
        ) -> Future[object]:
            future = super().submit(fn, *args, **kwargs)
            queued.set()
            return future

    pool = OneThread(max_workers=1)
    asyncio.get_running_loop().set_default_executor(pool)
    started, release = threading.Event(), threading.Event()
    ran: list[str] = []

    @tool
    def hold_the_thread() -> str:
        """Keep the only thread busy."""
        started.set()
        release.wait(timeout=HANG_GUARD)
        return "held"

    @tool
    def record() -> str:
        """Record that it ran."""
        ran.append("record")
        return "recorded"

    holder = asyncio.ensure_future(
        Agent(
            client=ScriptedChatClient(
                [ScriptedChatClient.function_call("hold_the_thread"), "done"]
            ),
            tools=[hold_the_thread],
        ).run("hold")
    )
    for _ in range(HANG_GUARD * 1000):  # the pool's only thread is busy: poll for it
        if started.is_set():
            break
        await asyncio.sleep(0.001)
    queued.clear()
    waiting = asyncio.ensure_future(
        Agent(
            client=ScriptedChatClient([ScriptedChatClient.function_call("record"), "done"]),
            tools=[record],
        ).run("record")
    )
    await asyncio.wait_for(queued.wait(), HANG_GUARD)  # its call waits for the busy thread
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    release.set()
    await asyncio.wait_for(holder, HANG_GUARD)
    pool.shutdown(wait=True)  # the queued call has been taken up by now, or dropped

    assert ran == []


async def test_a_sync_tool_raising_stop_iteration_fails_its_call_instead_of_hanging() -> None:
    @tool
    def exhausted() -> str:
        """Read past the end of an iterator."""
        return next(iter(()))

    client = ScriptedChatClient([ScriptedChatClient.function_call("exhausted"), "done"])
    response = await asyncio.wait_for(
        Agent(client=client, tools=[exhausted]).run("go"), timeout=HANG_GUARD
    )

    results = [c for m in response.messages if m.role == "tool" for c in m.contents]
    assert isinstance(results[0].exception, RuntimeError)
    assert isinstance(results[0].exception.__cause__, StopIteration)
