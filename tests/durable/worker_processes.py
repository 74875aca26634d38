"""`agentry worker` processes for the tests and benchmarks that need real workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Generator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from agentry.durable import DATABASE_URL_ENV

__all__ = [
    "durable_workers",
    "start_worker",
    "stop_workers",
    "worker_environment",
    "worker_processes",
]

ROOT = Path(__file__).resolve().parents[2]


def worker_environment(runs_url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment for a worker: the project's sources first on the path,
    the runs in `runs_url`, and `extra` (the app's own settings)."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]),
        DATABASE_URL_ENV: runs_url,
        **(extra or {}),
    }


def start_worker(app: str, worker_id: str, environment: dict[str, str]) -> subprocess.Popen[str]:
    """Start `agentry worker APP --worker-id ID`; the process, once it says it runs.

    Raises:
        RuntimeError: The worker did not start (its error output says why).
    """
    process = _spawn(app, worker_id, environment)
    _wait_until_running(process, worker_id)
    return process


def _spawn(app: str, worker_id: str, environment: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agentry.cli", "worker", app, "--worker-id", worker_id],
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=ROOT,
    )


def _wait_until_running(process: subprocess.Popen[str], worker_id: str) -> None:
    assert process.stderr is not None
    announced = process.stderr.readline()
    if f"agentry worker {worker_id}: running" not in announced:
        process.kill()
        said = process.stderr.read()
        stop_workers([process])
        raise RuntimeError(f"worker {worker_id} did not start: {announced}{said}")


def stop_workers(processes: Sequence[subprocess.Popen[str]]) -> None:
    """Stop the workers still running (SIGTERM, then SIGKILL after 30 s), and close the
    pipes of all of them (the ones killed before too)."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
        finally:
            if process.stderr is not None:
                process.stderr.close()


@contextmanager
def worker_processes(
    app: str, worker_ids: Sequence[str], environment: dict[str, str]
) -> Generator[list[subprocess.Popen[str]]]:
    """Workers of `app`, one per id (started together), running until the block ends."""
    processes: list[subprocess.Popen[str]] = []
    try:
        for worker_id in worker_ids:
            processes.append(_spawn(app, worker_id, environment))
        for process, worker_id in zip(processes, worker_ids, strict=True):
            _wait_until_running(process, worker_id)
        yield processes
    finally:
        stop_workers(processes)


@contextmanager
def durable_workers(
    app: str, count: int, runs_url: str, extra: Mapping[str, str] | None = None
) -> Generator[list[subprocess.Popen[str]]]:
    """`count` workers of `app` (`worker-0`, `worker-1`, ...) with their runs in `runs_url`
    and `extra` in their environment, running until the block ends."""
    ids = [f"worker-{number}" for number in range(count)]
    with worker_processes(app, ids, worker_environment(runs_url, extra)) as processes:
        yield processes
