"""The core benchmark's scenarios through the public API alone, timed in this process.

`python -m benchmarks._core_scenarios ROUNDS`, with some checkout's `src` first on the
path, prints one JSON object: each scenario's best mean time per run, in seconds. It uses
nothing of `agentry` but its public API, so `against_ref` can time an older checkout with
it too; `core` times the same runs against bare Python.
"""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Awaitable, Callable

from agentry import Agent, ChatResponseUpdate, tool
from agentry.clients.scripted import ScriptedChatClient
from benchmarks._timing import best_of

Run = Callable[[], Awaitable[None]]
"""One run of a scenario, to await."""


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


def _tool_on_the_loop() -> object:
    """The tool as a quick pure function that runs on the event loop (versions without
    `run_inline` ran every sync tool there)."""
    if "run_inline" in inspect.signature(tool).parameters:
        return tool(run_inline=True)(get_weather)
    return tool(get_weather)


def plain_run() -> Run:
    """A run without tools: one model answer."""
    client = ScriptedChatClient()
    agent = Agent(client=client)
    answer = ScriptedChatClient.reply("It is sunny.")

    async def run() -> None:
        client.add(answer)
        await agent.run("Hi")
        client.calls.clear()

    return run


def tool_round_trip(weather_tool: object | None = None) -> Run:
    """A run with one tool round trip: a call of `weather_tool` (by default a tool that
    runs on the loop), then the answer."""
    weather_tool = _tool_on_the_loop() if weather_tool is None else weather_tool
    client = ScriptedChatClient()
    agent = Agent(client=client, tools=[weather_tool])
    call = ScriptedChatClient.function_call("get_weather", {"city": "Paris"}, call_id="c1")
    answer = ScriptedChatClient.reply("It is sunny.")

    async def run() -> None:
        client.add(call, answer)
        await agent.run("Weather in Paris?")
        client.calls.clear()

    return run


def stream_chunks() -> list[ChatResponseUpdate]:
    """The 100 updates the model streams in `stream_run`."""
    return [ChatResponseUpdate(role="assistant", contents=[f"{i} "]) for i in range(100)]


def stream_run(chunks: list[ChatResponseUpdate]) -> Run:
    """A streamed run without tools: the model's answer in `chunks`."""
    client = ScriptedChatClient()
    agent = Agent(client=client)

    async def run() -> None:
        client.add(chunks)
        async for _ in agent.run("count", stream=True):
            pass
        client.calls.clear()

    return run


SCENARIOS = {
    "run without tools": (plain_run, 2000),
    "run with one tool round trip": (tool_round_trip, 2000),
    "100-chunk stream": (lambda: stream_run(stream_chunks()), 200),
}
"""Each scenario: what builds its run, and how many runs a round times."""


def main(rounds: int) -> None:
    """Print each scenario's best time per run over `rounds` rounds, as JSON."""
    times = {name: best_of(rounds, size, make()) for name, (make, size) in SCENARIOS.items()}
    print(json.dumps(times))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
