"""The A2A example runs and prints what the docs say."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(60)


def test_remote_agent_example() -> None:
    completed = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "a2a_remote_agent.py")],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == [
        "remote agent: travel (Checks the weather and books trips.)",
        "Lisbon is sunny and 24 degrees.",
        "approve book_trip({'city': 'Lisbon'})? yes",
        "Done: your trip to Lisbon is booked.",
    ]
