"""The code blocks of docs/security.md run as written."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest

from agentry import Content
from agentry.security import RedactingFilter

DOC = Path(__file__).resolve().parents[2] / "docs" / "security.md"


def test_the_code_blocks_run(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(blocks) == 4
    namespace: dict[str, Any] = {"__name__": "docs_security"}
    try:
        for block in blocks:
            exec(compile(block, str(DOC), "exec"), namespace)
        logging.getLogger("agentry.tools").warning("key sk-abcdefghijklmnopqrstuv for acct-123456")
    finally:
        logging.getLogger("agentry").removeHandler(namespace["handler"])
        logging.getLogger("agentry").setLevel(logging.NOTSET)
        for handler in logging.getLogger().handlers:
            for added in handler.filters[:]:
                if isinstance(added, RedactingFilter):
                    handler.removeFilter(added)
    out, err = capsys.readouterr()
    assert out.splitlines() == ["False", "read_tool_result", "key [REDACTED] for [REDACTED]"]
    # the recipe redacts records of the loggers below `agentry`
    assert err.endswith(" WARNING agentry.tools: key [REDACTED] for [REDACTED]\n")
    assert len(namespace["agent"].middleware) == 2
    send = Content.from_function_call(call_id="1", name="send_mail", arguments={})
    assert namespace["approving"].requires_approval(send)
