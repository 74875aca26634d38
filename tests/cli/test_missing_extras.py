"""Serving or chatting without the needed extra says which one to install (the command
line without a traceback)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import MissingExtraError

from .conftest import SRC

# Runs `agentry ARGS...` in an interpreter where the packages named by the first
# argument cannot be imported, as if their extra were not installed.
_WITHOUT_PACKAGES = """
import sys

class Blocker:
    def __init__(self, names):
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Blocker(set(sys.argv[1].split(","))))
from agentry.cli import main
sys.exit(main(sys.argv[2:]))
"""

AGENT = """
from agentry.clients.scripted import ScriptedChatClient

agent = ScriptedChatClient(["Hello!"]).as_agent(name="greeter")
"""


def agentry_without(packages: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT_PACKAGES, packages, *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={"PYTHONPATH": f"{SRC}:{cwd}", "PATH": "/usr/bin:/bin"},
        check=False,
    )


@pytest.mark.parametrize(
    ("protocol", "extra", "blocked"),
    [
        ("mcp", "mcp", "mcp"),
        ("a2a", "a2a", "a2a"),
        ("a2a", "a2a", "uvicorn"),
        ("openai", "openai-server", "starlette"),
        ("ag-ui", "ag-ui", "ag_ui"),
        ("openai", "openai-server", "openai"),
    ],
)
def test_serve_without_its_extra_names_the_extra_without_a_traceback(
    tmp_path: Path, protocol: str, extra: str, blocked: str
) -> None:
    (tmp_path / "app.py").write_text(AGENT)

    result = agentry_without(blocked, "serve", protocol, "app:agent", cwd=tmp_path)

    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert (
        f"agentry: error: `agentry serve {protocol}` needs the optional dependencies of the "
        f"'{extra}' extra ({blocked} is missing); install them with: "
        f"pip install 'agentry[{extra}]'"
    ) in result.stderr


def test_chat_with_a_client_whose_extra_is_missing_names_the_extra(tmp_path: Path) -> None:
    result = agentry_without("openai", "chat", "--client", "openai", cwd=tmp_path)

    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "needs the optional dependencies of the 'openai' extra" in result.stderr
    assert "pip install 'agentry[openai]'" in result.stderr


def test_serving_over_a2a_from_python_without_uvicorn_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentry.a2a import serve

    monkeypatch.setitem(sys.modules, "uvicorn", None)

    with pytest.raises(MissingExtraError, match=r"\(uvicorn is missing\).*agentry\[a2a\]"):
        serve(ScriptedChatClient(["Hello!"]).as_agent(name="greeter"), database=None)
