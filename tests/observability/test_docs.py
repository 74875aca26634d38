"""The logging recipe of docs/observability.md runs as written and does what it says."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.observability import _logging

DOC = Path(__file__).resolve().parents[2] / "docs" / "observability.md"


@tool
def fetch(url: str) -> str:
    """Fetch a page."""
    raise ValueError("upstream rejected key sk-abcdefghijklmnopqrstuvwx")


async def test_the_sensitive_logging_recipe_logs_messages_with_secrets_masked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_logging, "_sensitive", False)
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    (recipe,) = [block for block in blocks if "sensitive_data=True" in block]
    namespace: dict[str, Any] = {"__name__": "docs_observability"}
    exec(compile(recipe, str(DOC), "exec"), namespace)
    try:
        client = ScriptedChatClient([ScriptedChatClient.function_call("fetch", {"url": "x"}), "."])
        await Agent(client=client, tools=[fetch]).run("go")
    finally:
        logging.getLogger("agentry").removeHandler(namespace["handler"])
        logging.getLogger("agentry").setLevel(logging.NOTSET)

    err = capsys.readouterr().err
    assert "tool 'fetch' failed: ValueError: upstream rejected key [REDACTED]" in err
    assert "Traceback (most recent call last):" in err
    assert "sk-" not in err
