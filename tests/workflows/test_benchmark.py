"""The workflow benchmark runs (its figures are not asserted: timings belong to benchmarks)."""

from __future__ import annotations

from benchmarks.workflows import measure, report


def test_the_benchmark_measures_both_shapes() -> None:
    measurements = measure(runs_chain=2, runs_fan=1, repeats=1)
    assert [(m.name, m.hops_per_run) for m in measurements] == [
        ("chain of 10", 10),
        ("fan-out/fan-in x100", 102),
    ]
    assert all(m.engine_seconds > 0 and m.baseline_seconds > 0 for m in measurements)
    assert report(measurements).splitlines()[1].startswith("chain of 10")
