"""`make install` tells the user about the long llama.cpp build before it starts."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.docs.guide_blocks import ROOT


def _install_commands(venv: Path, extras: str) -> list[str]:
    dry_run = subprocess.run(
        ["make", "-n", "install", f"VENV={venv}", f"EXTRAS={extras}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return dry_run.stdout.splitlines()


def test_the_install_says_the_llama_cpp_build_takes_minutes_and_shows_progress(
    tmp_path: Path,
) -> None:
    commands = _install_commands(tmp_path / "venv", "local,mcp")

    (install,) = [c for c in commands if " pip install --python " in c and "-e " in c]
    notice = " ".join(commands[: commands.index(install)])
    assert "compiles llama.cpp" in notice
    assert "Building llama-cpp-python" in notice
    assert "5 to 10 minutes" in notice
    assert "--quiet" not in install  # on a terminal, uv shows what it downloads and builds


def test_an_install_without_the_local_model_does_not_announce_the_build(tmp_path: Path) -> None:
    commands = _install_commands(tmp_path / "venv", "openai")

    assert not any("llama.cpp" in c for c in commands)
