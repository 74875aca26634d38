"""The Anthropic integration stays optional and names its extra when it is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=environment
    )


def test_agentry_and_its_clients_do_not_import_the_sdk() -> None:
    completed = _python(
        "import sys, agentry, agentry.clients, agentry.clients.wire_format, agentry.testing\n"
        "print('anthropic' in sys.modules)"
    )

    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "False"


def test_without_the_sdk_the_error_names_the_extra() -> None:
    completed = _python(
        "import sys\n"
        "sys.modules['anthropic'] = None  # as if the extra were not installed\n"
        "try:\n"
        "    import agentry.anthropic\n"
        "except ImportError as error:\n"
        "    print(type(error).__name__, error)\n"
    )

    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == (
        "MissingExtraError The Anthropic client needs the optional dependencies of the "
        "'anthropic' extra; install them with: pip install 'agentry[anthropic]'"
    )


def test_the_thinking_example_runs_offline() -> None:
    completed = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "anthropic_thinking.py")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )

    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == [
        "[thought: The user wants the weather in Paris. I should call get_weather with city Paris.]",
        "[called get_weather({'city': 'Paris'})]",
        "It is sunny and 21°C in Paris.",
        "thinking tokens: 64",
    ]
