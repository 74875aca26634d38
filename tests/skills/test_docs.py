"""The code blocks of docs/skills.md run as written (from the examples folder, whose
skills/ folder is the one the page shows)."""

from __future__ import annotations

import asyncio
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "skills.md"


def test_the_code_blocks_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) == 5
    monkeypatch.chdir(ROOT / "examples")
    module = types.ModuleType("docs_skills")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace: dict[str, Any] = module.__dict__
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    assert capsys.readouterr().out.splitlines() == [
        "['unit-converter']",
        "10 km is 6.21 miles.",
        "['terms_list'] ['define']",
    ]
    script_result = namespace["client"].calls[-1].messages[-1].contents[0].result
    assert script_result.stdout == "10 km = 6.21 mi\n"
    assert script_result.ok
    tipping, glossary, runner = namespace["tipping"], namespace["glossary"], namespace["runner"]
    assert asyncio.run(tipping.get_script("tip").call(["40", "10"])) == "4.00"
    assert asyncio.run(tipping.get_resource("rates").read()) == "USD/EUR 0.92"
    assert asyncio.run(glossary.get_script("define").call(["LGTM"])) == "looks good to me"
    assert (runner.timeout, runner.env) == (20, {"UNITS": "metric"})
    dry_run = namespace["dry_run"](tipping, namespace["SkillScript"]("s", path="s.py"), ["1"])
    assert asyncio.run(dry_run) == "would run s.py of tipping with ['1']"


def test_the_skill_md_shown_is_the_example_skill() -> None:
    text = DOC.read_text(encoding="utf-8")
    shown = re.search(r"```markdown\n(.*?)```", text, flags=re.DOTALL)
    assert shown is not None
    example = (ROOT / "examples/skills/unit-converter/SKILL.md").read_text(encoding="utf-8")
    assert example.startswith(shown.group(1))
