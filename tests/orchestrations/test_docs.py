"""The code blocks of docs/orchestrations.md run as written."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "orchestrations.md"


def test_the_blocks_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(blocks) >= 5
    module = types.ModuleType("docs_orchestrations")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace: dict[str, Any] = module.__dict__
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    assert capsys.readouterr().out.splitlines() == [
        "writer: Fresh bread, every morning.",
        "editor: Fresh bread daily.",
        "Refunded order A-17.",
    ]
    assert repr(namespace["stop"].conditions) == "[KeywordTermination('APPROVED'), MaxRounds(6)]"
    assert callable(namespace["tally"])
