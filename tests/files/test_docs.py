"""The code blocks of docs/files.md run as written."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "files.md"


def test_the_code_blocks_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(blocks) == 3
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "docs_files"}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)

    assert capsys.readouterr().out.splitlines() == [
        "['notes/plan.md']",
        "notes/plan.md [(2, '2. Sell')]",
        "1. Bake",
        "2. Sell",
        "['file_access_save_file', 'file_access_read_file', 'file_access_delete_file', "
        "'file_access_list_files', 'file_access_search_files']",
        "['Likes tea.']",
    ]
    assert (tmp_path / "agent-files").is_dir()
