"""The cost of agentry's agent loop against bare Python doing the same calls by hand.

Both sides talk to a model that answers instantly; the baseline builds plain dicts and
calls the tool directly, so the difference is what the framework itself costs.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from agentry import Agent, ChatResponseUpdate, FunctionTool, RetryPolicy, tool
from agentry.clients.scripted import ScriptedChatClient
from benchmarks._timing import best_of, report

__all__ = ["main"]


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


@tool(run_inline=True)
def get_weather_inline(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


def _bare_get_weather(city: str) -> str:
    return f"Sunny in {city}"


async def _bare_model(reply: dict[str, Any]) -> dict[str, Any]:
    return reply


_CALL = {
    "role": "assistant",
    "tool_calls": [{"id": "c1", "name": "get_weather", "arguments": '{"city": "Paris"}'}],
}
_ANSWER = {"role": "assistant", "content": "It is sunny."}


async def _bare_tool_round_trip() -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
    first = await _bare_model(_CALL)
    messages.append(first)
    for call in first["tool_calls"]:
        result = _bare_get_weather(**json.loads(call["arguments"]))
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    messages.append(await _bare_model(_ANSWER))


async def _bare_threaded_tool_round_trip() -> None:
    """The same loop, with the sync tool run in a worker thread as agentry runs it."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
    first = await _bare_model(_CALL)
    messages.append(first)
    for call in first["tool_calls"]:
        arguments = json.loads(call["arguments"])
        result = await asyncio.to_thread(_bare_get_weather, **arguments)
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    messages.append(await _bare_model(_ANSWER))


async def _bare_plain_run() -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Hi"}]
    messages.append(await _bare_model(_ANSWER))


def bench_plain_run() -> None:
    client = ScriptedChatClient()
    agent = Agent(client=client)
    answer = ScriptedChatClient.reply("It is sunny.")

    async def run() -> None:
        client.add(answer)
        await agent.run("Hi")

    report("run without tools", best_of(5, 2000, run), best_of(5, 2000, _bare_plain_run))


def _time_tool_round_trip(weather_tool: FunctionTool) -> float:
    client = ScriptedChatClient()
    agent = Agent(client=client, tools=[weather_tool])
    call = ScriptedChatClient.function_call(weather_tool.name, {"city": "Paris"}, call_id="c1")
    answer = ScriptedChatClient.reply("It is sunny.")

    async def run() -> None:
        client.add(call, answer)
        await agent.run("Weather in Paris?")
        client.calls.clear()

    return best_of(5, 2000, run)


def bench_tool_round_trip() -> None:
    """A sync tool runs in a worker thread by default (the bare loop hops to a thread too);
    `run_inline=True` skips the hop on both sides."""
    target = "(target: overhead <= 100 us)"
    threaded = _time_tool_round_trip(get_weather)
    threaded_baseline = best_of(5, 2000, _bare_threaded_tool_round_trip)
    report("run with one tool round trip", threaded, threaded_baseline, target=target)
    inline = _time_tool_round_trip(get_weather_inline)
    inline_baseline = best_of(5, 2000, _bare_tool_round_trip)
    report("  same, tool with run_inline=True", inline, inline_baseline, target=target)


def bench_stream() -> None:
    chunks = [ChatResponseUpdate(role="assistant", contents=[f"{i} "]) for i in range(100)]
    client = ScriptedChatClient()
    agent = Agent(client=client)

    async def run() -> None:
        client.add(chunks)
        async for _ in agent.run("count", stream=True):
            pass
        client.calls.clear()

    async def source() -> AsyncIterator[ChatResponseUpdate]:
        for chunk in chunks:
            yield chunk

    async def bare() -> None:
        collected: list[str] = []
        async for chunk in source():
            collected.append(chunk.text)

    framework = best_of(5, 200, run)
    baseline = best_of(5, 200, bare)
    report("100-chunk stream", framework, baseline)
    per_chunk = (framework - baseline) / 100
    print(f"{'':<34} overhead per streamed chunk {per_chunk * 1e6:6.2f} us   (target: <= 5 us)")


def _interleaved(
    runs: dict[str, Callable[[], Awaitable[None]]], *, rounds: int = 200, iterations: int = 200
) -> dict[str, float]:
    """The best mean time of each run, its rounds taken in turn so that a busy machine
    slows every run alike."""

    async def measure() -> dict[str, float]:
        best = dict.fromkeys(runs, float("inf"))
        for run in runs.values():
            for _ in range(3):
                await run()
        for _ in range(rounds):
            for name, run in runs.items():
                started = time.perf_counter()
                for _ in range(iterations):
                    await run()
                best[name] = min(best[name], (time.perf_counter() - started) / iterations)
        return best

    return asyncio.run(measure())


def _model_call(retry: RetryPolicy | None, *, stream: bool) -> Callable[[], Awaitable[None]]:
    client = ScriptedChatClient(retry=retry)
    answer = ScriptedChatClient.reply("It is sunny.")

    async def run() -> None:
        client.add(answer)
        if stream:
            async for _ in client.get_response("Hi", stream=True):
                pass
        else:
            await client.get_response("Hi")
        client.calls.clear()

    return run


def bench_retry_cost() -> None:
    """What the retry machinery costs a model call (one per run without tools) when
    nothing fails: the default policy against retries off."""
    for label, stream in (("plain", False), ("streamed", True)):
        times = _interleaved(
            {
                "on": _model_call(RetryPolicy(), stream=stream),
                "off": _model_call(None, stream=stream),
            }
        )
        report(
            f"retry policy on vs off, {label} call",
            times["on"],
            times["off"],
            target="(target: overhead < 2 us per run)",
        )


def bench_concurrent_tool_runs(count: int = 1000) -> None:
    async def framework() -> float:
        async def sleepy_model(messages: Any, options: Any) -> Any:
            await asyncio.sleep(0.01)
            if messages[-1].role == "tool":
                return "It is sunny."
            return ScriptedChatClient.function_call("get_weather", {"city": "Paris"})

        clients = [ScriptedChatClient([sleepy_model, sleepy_model]) for _ in range(count)]
        agents = [Agent(client=c, tools=[get_weather]) for c in clients]
        started = time.perf_counter()
        await asyncio.gather(*(a.run("Weather?") for a in agents))
        return time.perf_counter() - started

    async def bare() -> float:
        async def one() -> None:
            await asyncio.sleep(0.01)
            _bare_get_weather("Paris")
            await asyncio.sleep(0.01)

        started = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(count)))
        return time.perf_counter() - started

    framework_time = min(asyncio.run(framework()) for _ in range(3))
    baseline_time = min(asyncio.run(bare()) for _ in range(3))
    ratio = framework_time / baseline_time
    print(
        f"{count} concurrent tool runs           agentry {framework_time * 1e3:7.1f} ms   "
        f"bare {baseline_time * 1e3:6.1f} ms   ratio {ratio:5.2f}x   "
        "(two 10 ms model calls each; target: < 150 ms)"
    )


def bench_import() -> None:
    def measure(statement: str) -> float:
        best = float("inf")
        for _ in range(5):
            out = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    f"import time; t = time.perf_counter(); {statement}; "
                    "print(time.perf_counter() - t)",
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            best = min(best, float(out.stdout))
        return best

    bare = measure("import asyncio, json")
    lazy = measure("import agentry")
    full = measure("from agentry import Agent, tool")
    print(
        f"{'import agentry':<34} {lazy * 1e3:7.1f} ms   (target: < 100 ms; "
        f"bare 'import asyncio, json' {bare * 1e3:.1f} ms)"
    )
    name = "from agentry import Agent, tool"
    print(f"{name:<34} {full * 1e3:7.1f} ms   ratio to bare {full / bare:5.1f}x")


def main() -> None:
    """Run the core benchmarks and print one line each."""
    print("== core agent (scripted model that answers instantly) ==")
    bench_plain_run()
    bench_tool_round_trip()
    bench_stream()
    bench_retry_cost()
    bench_concurrent_tool_runs()
    bench_import()


if __name__ == "__main__":
    main()
