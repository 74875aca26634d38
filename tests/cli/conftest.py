import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")

# Runs the `agentry` console script exactly as installed: through its entry point.
_ENTRY_POINT = (
    "import sys\n"
    "from importlib.metadata import entry_points\n"
    "(command,) = entry_points(group='console_scripts', name='agentry')\n"
    "sys.exit(command.load()())\n"
)

Agentry = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def agentry(tmp_path: Path) -> Agentry:
    """Run `agentry ARGS...` in a subprocess (working directory: `tmp_path`)."""

    def run(
        *args: str, stdin: str = "", env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        environment = {
            k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "OTEL_"))
        }
        environment["PYTHONPATH"] = SRC
        environment.update(env or {})
        return subprocess.run(
            [sys.executable, "-c", _ENTRY_POINT, *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
            env=environment,
            check=False,
        )

    return run
