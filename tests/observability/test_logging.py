import io
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.observability import configure_logging, get_logger

SRC = str(Path(__file__).resolve().parents[2] / "src")
_UNKNOWN_TOOL_RUN = (
    "import asyncio\n"
    "from agentry import Agent\n"
    "from agentry.clients.scripted import ScriptedChatClient\n"
    "client = ScriptedChatClient([ScriptedChatClient.function_call('nope', {}), 'done'])\n"
    "print(asyncio.run(Agent(client=client).run('go')).text)\n"
)


def test_warnings_are_quiet_by_default() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _UNKNOWN_TOOL_RUN],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": SRC},
        check=True,
    )
    assert result.stdout.strip() == "done"
    assert result.stderr == ""


async def test_configure_logging_shows_agentry_records() -> None:
    stream = io.StringIO()
    handler = configure_logging("WARNING", stream=stream, format="%(name)s %(message)s")
    try:
        client = ScriptedChatClient([ScriptedChatClient.function_call("nope", {}), "done"])
        await Agent(client=client).run("go")
        assert stream.getvalue() == "agentry.tools model called unknown tool 'nope'\n"
        # a second call replaces the handler instead of printing twice
        again = configure_logging("WARNING", stream=stream, format="%(name)s %(message)s")
        assert logging.getLogger("agentry").handlers.count(again) == 1
        assert handler not in logging.getLogger("agentry").handlers
        handler = again
    finally:
        logging.getLogger("agentry").removeHandler(handler)
        logging.getLogger("agentry").setLevel(logging.NOTSET)


def test_get_logger_keeps_to_the_agentry_hierarchy() -> None:
    assert get_logger("agentry.workflows").parent is logging.getLogger("agentry")
    with pytest.raises(ValueError, match="under 'agentry'"):
        get_logger("myapp")
