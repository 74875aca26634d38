"""The code blocks of docs/mcp.md run as written (from the examples folder, whose
mcp/weather_server.py is the server the page starts)."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from agentry.mcp import MCPTaskOptions

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "mcp.md"


@pytest.mark.timeout(60)
def test_the_code_blocks_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(blocks) == 6
    monkeypatch.chdir(ROOT / "examples")
    module = types.ModuleType("docs_mcp")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace: dict[str, Any] = module.__dict__
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)

    assert capsys.readouterr().out.splitlines() == ["['get_forecast']", "Sunny in Paris."]
    assert namespace["crm"].additional_tool_argument_names == {
        "*": ("tenant",),
        "search": ("options",),
    }
    assert namespace["summariser"].sampling_policy.max_tokens == 512
    assert namespace["research"].task_options == MCPTaskOptions()
    assert namespace["server"].name == "greeter"
    assert namespace["app"] is not None
