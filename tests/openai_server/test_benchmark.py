"""The server benchmark runs, both sides answering alike (its figures are not asserted:
timings belong to benchmarks)."""

from __future__ import annotations

import asyncio

import httpx
from benchmarks.openai_server import REQUEST, measure, serving


def test_the_benchmark_measures_both_servers_on_the_same_answers() -> None:
    with serving("agentry") as served, serving("bare") as bare:
        ours = httpx.post(served, json=REQUEST).json()["choices"][0]["message"]["content"]
        theirs = httpx.post(bare, json=REQUEST).json()["choices"][0]["message"]["content"]
        times = asyncio.run(measure(served, bare, repeats=1, iterations=2))

    assert ours == theirs != ""
    assert set(times) == {"plain", "streamed, 100 chunks"}
    assert all(a > 0 and b > 0 for a, b in times.values())
