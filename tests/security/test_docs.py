"""The code blocks of docs/security.md run as written."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest

from agentry import Content

DOC = Path(__file__).resolve().parents[2] / "docs" / "security.md"


def test_the_code_blocks_run(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(blocks) == 4
    namespace: dict[str, Any] = {"__name__": "docs_security"}
    try:
        for block in blocks:
            exec(compile(block, str(DOC), "exec"), namespace)
    finally:
        for added in logging.getLogger("agentry").filters[:]:
            logging.getLogger("agentry").removeFilter(added)
    assert capsys.readouterr().out.splitlines() == ["False", "read_tool_result", "key [REDACTED] for [REDACTED]"]
    assert len(namespace["agent"].middleware) == 2
    send = Content.from_function_call(call_id="1", name="send_mail", arguments={})
    assert namespace["approving"].requires_approval(send)
