"""The workflow examples run as scripts and print what they promise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "workflows"


def _run(name: str, *args: str) -> str:
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
    }
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def test_map_reduce() -> None:
    out = _run("map_reduce.py")
    assert "-- superstep 2\n   mapper0\n   mapper1\n   mapper2\n" in out
    assert out.strip().endswith("top words: the=4, fox=4, quick=2")


def test_conditional_router() -> None:
    lines = _run("conditional_router.py").splitlines()
    assert lines == [
        "triage: billing    -> [billing] refund on its way: 'I was charged twice this month.'",
        "triage: technical  -> [technical] bug filed: 'The app crashes when I upload a photo.'",
        "triage: other      -> [people] a colleague will reply: 'Can I bring my dog to the office?'",
    ]


def test_human_approval_resumes_in_a_fresh_process() -> None:
    out = _run("human_approval.py")
    assert "[first process] waiting for approval of 120.00 EUR" in out
    assert "[second process] paid 120.00 EUR to Ada" in out
    assert out.strip().endswith("[second process] final state: idle")
    rejected = _run("human_approval.py", "--reject")
    assert "[second process] rejected: not in this year's budget" in rejected
