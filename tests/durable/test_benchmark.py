"""The durable benchmarks run (their figures are not asserted: timings belong to benchmarks)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.durable import measure, report
from benchmarks.durable_throughput import measure_throughput


def test_the_durable_benchmark_times_agentry_and_bare_dbos(tmp_path: Path) -> None:
    measurement = measure(runs=2, repeats=2, database=str(tmp_path / "bench.sqlite"))
    assert measurement.agentry_seconds > 0
    assert measurement.dbos_seconds > 0
    assert measurement.agentry_cpu_seconds > 0
    assert report(measurement).startswith("durable step (sqlite): agentry")


def test_the_durable_benchmark_runs_on_postgresql(postgres_url: str) -> None:
    measurement = measure(runs=2, repeats=1, database=postgres_url)
    assert measurement.agentry_seconds > 0
    assert report(measurement).startswith("durable step (postgresql): agentry")


def test_the_throughput_benchmark_runs_queued_workflows_on_worker_processes(
    tmp_path: Path,
) -> None:
    measured = measure_throughput(1, f"sqlite:///{tmp_path / 'throughput.sqlite'}", runs=5)
    assert (measured.database, measured.workers, measured.runs) == ("sqlite", 1, 5)
    assert measured.per_second > 0
