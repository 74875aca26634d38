"""The cost of agentry's agent loop against bare Python doing the same calls by hand.

Both sides talk to a model that answers instantly; the baseline builds plain dicts and
calls the tool directly, so the difference is what the framework itself costs.
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from agentry import (
    Agent,
    AgentSession,
    ChatResponseUpdate,
    Content,
    FunctionTool,
    InMemoryHistoryProvider,
    Message,
    RetryPolicy,
    UsageDetails,
    UsageLimits,
    tool,
)
from agentry.clients.scripted import ScriptedChatClient
from agentry.sessions import TokenBudgetCompaction
from benchmarks._core_scenarios import plain_run, stream_chunks, stream_run, tool_round_trip
from benchmarks._timing import best_of_both, report, rounds_in_turn

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
    report("run without tools", *best_of_both(5, 2000, plain_run(), _bare_plain_run))


def bench_usage_limits() -> None:
    """Plain runs with every usage limit set, per run only and per run and per session,
    against the same run without limits: the cost of counting usage and checking it when
    no limit is reached.

    The three agents share one scripted client and run the same number of runs per round;
    short rounds of each alternate (A B C, C B A, ...), so that all meet the same load. The
    cost is the difference of the best rounds (what a run costs when nothing else runs),
    and the median of the differences of neighbouring rounds (steadier when the machine is
    busy all along)."""
    limits = UsageLimits(
        requests=10**9,
        tool_calls=10**9,
        input_tokens=10**12,
        output_tokens=10**12,
        total_tokens=10**12,
    )
    usage: UsageDetails = {
        "input_token_count": 12,
        "output_token_count": 4,
        "total_token_count": 16,
    }
    client = ScriptedChatClient()
    answer = ScriptedChatClient.reply("It is sunny.", usage_details=usage)
    history = InMemoryHistoryProvider.DEFAULT_SOURCE_ID or ""

    def make_run(agent: Agent) -> Callable[[], Awaitable[None]]:
        session = AgentSession()

        async def run() -> None:
            client.add(answer)
            await agent.run("Hi", session=session)
            client.calls.clear()
            session.state.pop(history, None)  # every run starts a fresh conversation

        return run

    agents = {
        "without": Agent(client=client),
        "per run": Agent(client=client, usage_limits=limits),
        "per run and session": Agent(
            client=client, usage_limits=limits, session_usage_limits=limits
        ),
    }
    times = rounds_in_turn(1000, 20, {name: make_run(agent) for name, agent in agents.items()})
    without = times["without"]
    for name in ("per run", "per run and session"):
        best = min(times[name]) - min(without)
        median = statistics.median(w - o for w, o in zip(times[name], without, strict=True))
        print(
            f"{'usage limits ' + name:<34} cost per run {best * 1e6:5.2f} us (median of "
            f"neighbours {median * 1e6:.2f} us), over {min(without) * 1e6:.1f} us without   "
            "(target: < 2 us)"
        )


def bench_tool_round_trip() -> None:
    """A sync tool runs in a worker thread by default (the bare loop hops to a thread too);
    `run_inline=True` skips the hop on both sides."""
    target = "(target: overhead <= 100 us)"
    threaded = best_of_both(5, 2000, tool_round_trip(get_weather), _bare_threaded_tool_round_trip)
    report("run with one tool round trip", *threaded, target=target)
    inline = best_of_both(5, 2000, tool_round_trip(get_weather_inline), _bare_tool_round_trip)
    report("  same, tool with run_inline=True", *inline, target=target)


def bench_stream() -> None:
    chunks = stream_chunks()

    async def source() -> AsyncIterator[ChatResponseUpdate]:
        for chunk in chunks:
            yield chunk

    async def bare() -> None:
        collected: list[str] = []
        async for chunk in source():
            collected.append(chunk.text)

    framework, baseline = best_of_both(5, 200, stream_run(chunks), bare)
    report("100-chunk stream", framework, baseline)
    per_chunk = (framework - baseline) / 100
    print(f"{'':<34} overhead per streamed chunk {per_chunk * 1e6:6.2f} us   (target: <= 5 us)")


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
        with_policy, without = best_of_both(
            200, 200, _model_call(RetryPolicy(), stream=stream), _model_call(None, stream=stream)
        )
        report(
            f"retry policy on vs off, {label} call",
            with_policy,
            without,
            target="(target: overhead < 2 us per run)",
        )


async def _concurrent_agents(weather_tool: FunctionTool, count: int) -> float:
    async def sleepy_model(messages: Any, options: Any) -> Any:
        await asyncio.sleep(0.01)
        if messages[-1].role == "tool":
            return "It is sunny."
        return ScriptedChatClient.function_call(weather_tool.name, {"city": "Paris"})

    clients = [ScriptedChatClient([sleepy_model, sleepy_model]) for _ in range(count)]
    agents = [Agent(client=c, tools=[weather_tool]) for c in clients]
    started = time.perf_counter()
    await asyncio.gather(*(a.run("Weather?") for a in agents))
    return time.perf_counter() - started


async def _concurrent_footprint(weather_tool: FunctionTool, count: int) -> tuple[float, list[int]]:
    """What `count` concurrent tool runs allocate: the memory blocks each run holds while
    all of them wait for their first model answer, and the garbage collector's passes
    (per generation) over the whole batch. Both count objects, not time, so they hold
    steady on a busy machine."""
    waiting = 0
    all_waiting = asyncio.Event()
    release = asyncio.Event()

    async def first_answer_waits(messages: Any, options: Any) -> Any:
        nonlocal waiting
        waiting += 1
        if waiting == count:
            all_waiting.set()
        await release.wait()
        return ScriptedChatClient.function_call(weather_tool.name, {"city": "Paris"})

    clients = [ScriptedChatClient([first_answer_waits, "It is sunny."]) for _ in range(count)]
    agents = [Agent(client=c, tools=[weather_tool]) for c in clients]
    gc.collect()
    passes_before = [generation["collections"] for generation in gc.get_stats()]
    blocks_before = sys.getallocatedblocks()
    runs = asyncio.gather(*(a.run("Weather?") for a in agents))
    await all_waiting.wait()
    blocks_per_run = (sys.getallocatedblocks() - blocks_before) / count
    release.set()
    await runs
    passes = [
        generation["collections"] - before
        for generation, before in zip(gc.get_stats(), passes_before, strict=True)
    ]
    return blocks_per_run, passes


async def _concurrent_bare(count: int, *, threaded: bool) -> float:
    async def one() -> None:
        await asyncio.sleep(0.01)
        if threaded:
            await asyncio.to_thread(_bare_get_weather, "Paris")
        else:
            _bare_get_weather("Paris")
        await asyncio.sleep(0.01)

    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(count)))
    return time.perf_counter() - started


def bench_concurrent_tool_runs(count: int = 1000) -> None:
    """`count` agents at once, each with two 10 ms model calls around one call of a quick
    pure tool. Such a tool is what the guide marks `run_inline=True`; the default (a worker
    thread per call) is timed too, against a bare loop that hops to a thread as well."""
    for name, weather_tool, threaded, target in (
        (f"{count} concurrent tool runs", get_weather_inline, False, "(target: < 150 ms)"),
        ("  same, tool in worker threads", get_weather, True, "(bare hops to a thread too)"),
    ):
        framework = baseline = float("inf")
        for _ in range(3):  # alternating, so that both meet the same load
            framework = min(framework, asyncio.run(_concurrent_agents(weather_tool, count)))
            baseline = min(baseline, asyncio.run(_concurrent_bare(count, threaded=threaded)))
        print(
            f"{name:<34} agentry {framework * 1e3:7.1f} ms   bare {baseline * 1e3:6.1f} ms   "
            f"ratio {framework / baseline:5.2f}x   overhead {(framework - baseline) * 1e3:6.1f} ms"
            f"   {target}"
        )
    blocks, passes = asyncio.run(_concurrent_footprint(get_weather_inline, count))
    print(
        f"{'':<34} memory blocks held per run in flight {blocks:6.1f}   GC passes over the "
        f"{count} runs (gen 0/1/2) {'/'.join(str(p) for p in passes)}"
    )


def _tool_history(turns: int) -> list[Message]:
    history: list[Message] = []
    for n in range(turns):
        call = Content.from_function_call(call_id=f"h{n}", name="get_weather", arguments={"n": n})
        history += [
            Message("user", [f"Weather in city {n}?"]),
            Message("assistant", [call]),
            Message("tool", [Content.from_function_result(call_id=f"h{n}", result="Sunny.")]),
            Message("assistant", [f"It is sunny in city {n}."]),
        ]
    return history


def bench_compaction(turns: int = 200, *, repeats: int = 5, iterations: int = 200) -> None:
    """One tool round trip on a session of `turns` turns with tool calls, with a token
    budget against without one (the baseline sends the whole history)."""
    call = ScriptedChatClient.function_call("get_weather", {"city": "Paris"}, call_id="c1")
    answer = ScriptedChatClient.reply("It is sunny.")
    history = _tool_history(turns)

    def make_run(compaction: TokenBudgetCompaction | None) -> Callable[[], Awaitable[None]]:
        client = ScriptedChatClient()
        provider = InMemoryHistoryProvider(
            store_inputs=False, store_outputs=False, compaction=compaction
        )
        agent = Agent(client=client, tools=[get_weather_inline], context_providers=[provider])
        session = agent.create_session()
        session.state["in_memory"] = {"messages": history}

        async def run() -> None:
            client.add(call, answer)
            await agent.run("Weather in Paris?", session=session)
            client.calls.clear()

        return run

    compacted, whole = best_of_both(
        repeats, iterations, make_run(TokenBudgetCompaction(1000)), make_run(None)
    )
    overhead = compacted - whole
    print(
        f"{f'token budget, {turns}-turn history':<34} {compacted * 1e6:9.1f} us per run   "
        f"without compaction {whole * 1e6:8.1f} us   ratio {compacted / whole:5.2f}x   "
        f"compaction costs {overhead * 1e6:7.1f} us per run (2 model requests)"
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
    bench_usage_limits()
    bench_tool_round_trip()
    bench_stream()
    bench_retry_cost()
    bench_concurrent_tool_runs()
    bench_compaction()
    bench_import()


if __name__ == "__main__":
    main()
