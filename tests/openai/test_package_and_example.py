"""The OpenAI integration stays optional, and its example runs offline."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, env=environment
    )


def test_agentry_and_its_testing_helpers_do_not_import_the_sdk() -> None:
    code = (
        "import sys, agentry, agentry.testing\n"
        "print(sorted(m for m in ('openai', 'httpx2', 'uvicorn') if m in sys.modules))"
    )
    completed = _python("-c", code)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"


def test_the_replay_example_answers_with_two_tool_calls() -> None:
    completed = _python(str(ROOT / "examples" / "openai_replay.py"))

    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == [
        '[called get_weather({"city":"Paris"})]',
        '[called get_weather({"city":"Tokyo"})]',
        "It is sunny and 21°C in Paris, and rainy and 16°C in Tokyo.",
        "service conversation: resp_68f1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e1",
    ]
