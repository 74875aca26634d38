"""A workflow process is killed mid-superstep and a new process resumes it from SQLite."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

WORKER = Path(__file__).with_name("crash_worker.py")
SRC = Path(__file__).resolve().parents[2] / "src"


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def _kill_when_blocked(database: Path) -> list[dict[str, Any]]:
    """Run the workflow until it blocks at round 2, item 3, then SIGKILL it."""
    process = subprocess.Popen(
        [sys.executable, str(WORKER), str(database), "start", "--crash-at", "2:3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    assert process.stdout is not None
    lines: list[dict[str, Any]] = []
    try:
        for raw in process.stdout:
            line = json.loads(raw)
            lines.append(line)
            if line["event"] == "blocking":
                process.send_signal(signal.SIGKILL)
                break
    finally:
        if process.poll() is None:
            process.kill()
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL, f"worker was not killed: {stderr}"
    return lines


def test_a_killed_run_resumes_from_sqlite_without_lost_or_duplicated_messages(
    tmp_path: Path,
) -> None:
    database = tmp_path / "checkpoints.db"
    before = _kill_when_blocked(database)
    # The killed process got into round 2: the even worker and the odd worker's item 1 ran.
    handled_round_2 = {
        (e["worker"], e["index"]) for e in before if e["event"] == "handled" and e["round"] == 2
    }
    assert ("odd", 1) in handled_round_2
    assert before[-1] == {"event": "blocking", "worker": "odd", "round": 2, "index": 3}

    resumed = subprocess.run(
        [sys.executable, str(WORKER), str(database), "resume"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    lines = [json.loads(raw) for raw in resumed.stdout.splitlines()]
    assert lines[0]["event"] == "resuming"
    finished = lines[-1]
    assert finished["event"] == "finished"

    rounds = finished["restored"] + finished["outputs"]
    # Every round finished exactly once, each with every item exactly once...
    assert [r["round"] for r in rounds] == [0, 1, 2, 3]
    assert all(r["indexes"] == [0, 1, 2, 3, 4, 5] for r in rounds)
    # ...and the executor state counted each delivered message once across both processes.
    assert [r["total_seen"] for r in rounds] == [6, 12, 18, 24]
    # The resumed process redid the interrupted superstep (round 2) and nothing before it.
    redone = {(e["round"], e["worker"], e["index"]) for e in lines if e["event"] == "handled"}
    assert min(r for r, _, _ in redone) == 2
    assert {(w, i) for r, w, i in redone if r == 2} == {
        ("even", 0),
        ("even", 2),
        ("even", 4),
        ("odd", 1),
        ("odd", 3),
        ("odd", 5),
    }
