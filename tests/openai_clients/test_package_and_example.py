"""The OpenAI integration stays optional, and its example runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_agentry_and_its_testing_helpers_do_not_import_the_sdk() -> None:
    code = (
        "import sys, agentry, agentry.testing\n"
        "print(sorted(m for m in ('openai', 'httpx2') if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "[]"


def test_the_replay_example_answers_with_two_tool_calls() -> None:
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / "openai_replay.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == [
        '[called get_weather({"city":"Paris"})]',
        '[called get_weather({"city":"Tokyo"})]',
        "It is sunny and 21°C in Paris, and rainy and 16°C in Tokyo.",
        "service conversation: resp_68f1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e1",
    ]
