"""The self-contained code blocks of docs/workflows.md run as written."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "workflows.md"


def _blocks() -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    # Fragments that await at top level or write files are illustrated, not run, here.
    return [b for b in blocks if not re.search(r"^\S.*\bawait\b|^result|export\(", b, re.M)]


def test_the_runnable_blocks_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = _blocks()
    assert len(blocks) >= 4
    module = types.ModuleType("docs_workflows")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace: dict[str, Any] = module.__dict__
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    assert capsys.readouterr().out.splitlines()[0] == "['result: 42']"
    assert namespace["summarizer"].id == "summarizer"
    assert sorted(namespace["workflow"].executors) == ["reviewer", "writer"]
