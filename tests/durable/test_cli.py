"""`agentry worker` runs durable workflows; `agentry workflow status|send-response` read and
answer them from another process."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentry.cli import main
from agentry.cli._durable import parse_answer
from agentry.cli._errors import CliError
from agentry.durable import DurableRuntime
from tests.durable.cli_app import Review, build_review

ROOT = Path(__file__).resolve().parents[2]
APP = "tests.durable.cli_app:create_runtime"


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    monkeypatch.setenv("AGENTRY_DURABLE_DATABASE_URL", url)
    monkeypatch.chdir(ROOT)
    return url


@pytest.fixture
def worker(database: str) -> Iterator[subprocess.Popen[str]]:
    """`agentry worker` in its own process, once it says it runs."""
    environment = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    process = subprocess.Popen(
        [sys.executable, "-m", "agentry.cli", "worker", APP, "--worker-id", "cli-test"],
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=ROOT,
    )
    assert process.stderr is not None
    announced = process.stderr.readline()
    assert "agentry worker cli-test: running review on sqlite:///" in announced, announced
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


async def _start_and_wait(database: str) -> str:
    client = DurableRuntime(database)
    client.register(build_review)
    try:
        run = await client.start("review", "A note on tides", run_id="review-1")
        await run.wait_for_requests(timeout=60)
        return run.run_id
    finally:
        client.shutdown()


async def _result(database: str) -> list[str]:
    client = DurableRuntime(database)
    client.register(build_review)
    try:
        return (await client.run("review-1").result(timeout=60)).get_outputs()
    finally:
        client.shutdown()


def test_a_worker_runs_queued_runs_and_the_cli_answers_them(
    worker: subprocess.Popen[str], database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id = asyncio.run(_start_and_wait(database))

    assert main(["workflow", "status", run_id, "--app", APP]) == 0
    shown = capsys.readouterr().out
    assert f"run {run_id}: PENDING" in shown
    assert "request review from reviewer: A note on tides (answer: Review)" in shown

    assert main(["workflow", "send-response", run_id, "yes", "--app", APP]) == 1
    assert "does not fit the request's type" in capsys.readouterr().err
    assert main(["workflow", "send-response", run_id, "{}", "--request-id", "other"]) == 2
    capsys.readouterr()
    answer = '{"approved": true, "note": "fine"}'
    assert main(["workflow", "send-response", run_id, answer, "--app", APP]) == 0
    assert "answered review of run review-1" in capsys.readouterr().err

    assert asyncio.run(_result(database)) == ["published: A note on tides (fine)"]
    assert main(["workflow", "status", run_id, "--app", APP]) == 0
    assert "output: published: A note on tides (fine)" in capsys.readouterr().out

    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=60) == 0


def test_the_cli_names_what_is_missing(
    database: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTRY_DURABLE_APP", raising=False)
    assert main(["workflow", "status", "run-1"]) == 2
    assert "name the app's runtime with --app" in capsys.readouterr().err
    assert main(["workflow", "status", "run-1", "--app", "tests.durable.cli_app:build_review"]) == 1
    assert "not a DurableRuntime" in capsys.readouterr().err
    assert main(["workflow", "status", "run-1", "--app", APP]) == 1
    assert "has a worker been launched on this database?" in capsys.readouterr().err


def test_answers_are_read_as_json_and_checked_strictly() -> None:
    assert parse_answer("true", bool) is True
    assert parse_answer('{"approved": false}', Review) == Review(False)
    assert parse_answer("plain words", str) == "plain words"
    with pytest.raises(CliError, match="does not fit"):
        parse_answer('"yes"', bool)
    with pytest.raises(CliError, match="does not fit"):
        parse_answer("1", bool)
