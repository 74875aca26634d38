"""Running an example as its reader would: a fresh interpreter on the file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_example(name: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run `examples/NAME` with `args`; the finished process (it must have succeeded)."""
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert completed.returncode == 0, completed.stderr
    return completed
