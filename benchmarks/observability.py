"""What instrumentation costs: the run loop with telemetry off (the default) and on.

Off, the core reads one module flag per agent run, chat call and tool batch; on, every
run, chat call and tool call makes a span and records metrics.
"""

from __future__ import annotations

import timeit

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.observability import _state, disable_instrumentation, enable_instrumentation
from benchmarks._timing import best_of

__all__ = ["main"]


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


def _round_trip_time() -> float:
    client = ScriptedChatClient()
    agent = Agent(client=client, tools=[get_weather])
    call = ScriptedChatClient.function_call("get_weather", {"city": "Paris"}, call_id="c1")
    answer = ScriptedChatClient.reply("It is sunny.")

    async def run() -> None:
        client.add(call, answer)
        await agent.run("Weather in Paris?")
        client.calls.clear()

    return best_of(5, 1000, run)


def main() -> None:
    """Time a tool round trip with instrumentation off and on; print the switch's cost."""
    print("== observability (scripted model, one tool round trip per run) ==")
    switch = min(timeit.repeat("_state.enabled", globals={"_state": _state}, number=100_000))
    # reads of the switch per run: the agent run, two chat calls, one tool batch
    per_run = 4 * switch / 100_000
    print(f"{'switch read, per run (4 reads)':<34} {per_run * 1e9:7.1f} ns   (target: < 1 us)")
    disable_instrumentation()
    off = _round_trip_time()
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    enable_instrumentation(tracer_provider=tracer_provider, meter_provider=MeterProvider())
    try:
        on = _round_trip_time()
    finally:
        disable_instrumentation()
        tracer_provider.shutdown()
    print(
        f"{'tool round trip, telemetry off':<34} {off * 1e6:7.1f} us   "
        f"on (4 spans, in-memory) {on * 1e6:7.1f} us   cost when on {(on - off) * 1e6:6.1f} us"
    )


if __name__ == "__main__":
    main()
