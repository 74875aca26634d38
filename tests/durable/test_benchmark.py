"""The durable benchmark runs (its figures are not asserted: timings belong to benchmarks)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.durable import measure, report


def test_the_durable_benchmark_times_agentry_and_bare_dbos(tmp_path: Path) -> None:
    measurement = measure(runs=2, repeats=1, database=str(tmp_path / "bench.sqlite"))
    assert measurement.agentry_seconds > 0
    assert measurement.dbos_seconds > 0
    assert report(measurement).startswith("durable step (sqlite): agentry")


def test_the_durable_benchmark_runs_on_postgresql(postgres_url: str) -> None:
    measurement = measure(runs=2, repeats=1, database=postgres_url)
    assert measurement.agentry_seconds > 0
    assert report(measurement).startswith("durable step (postgresql): agentry")
