"""What instrumentation costs: the run loop with telemetry off (the default) and on.

Off, the core reads one module flag per agent run, chat call and tool batch; on, every
run, chat call and tool call makes a span and records metrics.
"""

from __future__ import annotations

import asyncio
import time
import timeit
from collections.abc import Callable

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agentry import tool
from agentry.observability import _state, disable_instrumentation, enable_instrumentation
from benchmarks._core_scenarios import tool_round_trip

__all__ = ["main"]


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


def _round_trip_times(
    exporter: InMemorySpanExporter, enable: Callable[[], None]
) -> tuple[float, float]:
    """(off, on): the best round of each, the rounds alternating so that both meet the same
    load. The exporter is emptied after each run, as a real exporter sends spans away."""
    round_trip = tool_round_trip(get_weather)

    async def run() -> None:
        await round_trip()
        exporter.clear()

    async def rounds() -> tuple[float, float]:
        off = on = float("inf")
        for switch in (disable_instrumentation, enable) * 6:
            switch()
            for _ in range(3):  # warm up
                await run()
            started = time.perf_counter()
            for _ in range(_RUNS):
                await run()
            elapsed = (time.perf_counter() - started) / _RUNS
            if switch is enable:
                on = min(on, elapsed)
            else:
                off = min(off, elapsed)
        disable_instrumentation()
        return off, on

    return asyncio.run(rounds())


_RUNS = 1000


def main() -> None:
    """Time a tool round trip with instrumentation off and on; print the switch's cost."""
    print("== observability (scripted model, one tool round trip per run) ==")
    switch = min(timeit.repeat("_state.enabled", globals={"_state": _state}, number=100_000))
    # reads of the switch per run: the agent run, two chat calls, one tool batch
    per_run = 4 * switch / 100_000
    print(f"{'switch read, per run (4 reads)':<34} {per_run * 1e9:7.1f} ns   (target: < 1 us)")
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    meter_provider = MeterProvider()

    def enable() -> None:
        enable_instrumentation(tracer_provider=tracer_provider, meter_provider=meter_provider)

    try:
        off, on = _round_trip_times(exporter, enable)
    finally:
        tracer_provider.shutdown()
    print(
        f"{'tool round trip, telemetry off':<34} {off * 1e6:7.1f} us   "
        f"on (4 spans, in-memory) {on * 1e6:7.1f} us   cost when on {(on - off) * 1e6:6.1f} us "
        f"({(on - off) / 4 * 1e6:.1f} us a span with its metrics)"
    )


if __name__ == "__main__":
    main()
