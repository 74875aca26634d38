import io
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.observability import (
    _logging,
    configure_logging,
    get_logger,
    is_sensitive_logging_enabled,
)
from agentry.observability._exceptions import traceback_without_messages
from agentry.security import RedactingFilter

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
        assert stream.getvalue() == (
            "agentry.tools the model called the unknown tool (name hidden); available tools: none\n"
        )
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


KEY = "sk-abcdefghijklmnopqrstuvwx"


@tool
def fetch(url: str) -> str:
    """Fetch a page."""
    raise ValueError(f"upstream rejected key {KEY}")


def _failing_fetch() -> Agent:
    client = ScriptedChatClient([ScriptedChatClient.function_call("fetch", {"url": "x"}), "ok"])
    return Agent(client=client, tools=[fetch])


@pytest.fixture
def sensitive_logging_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sensitive logging as by default, and restored after the test."""
    monkeypatch.setattr(_logging, "_sensitive", False)


@pytest.mark.usefixtures("sensitive_logging_off")
async def test_a_failing_tool_is_logged_with_its_frames_but_not_its_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="agentry.tools"):
        await _failing_fetch().run("go")

    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert record.name == "agentry.tools"
    assert record.pathname.endswith("_invocation.py")  # where the failure was handled
    text = record.getMessage()
    assert text.startswith("tool 'fetch' failed with ValueError (message hidden")
    assert f'File "{__file__}"' in text  # the frame of the tool's function...
    assert "in fetch" in text
    assert text.endswith("ValueError (message hidden)")
    assert "raise ValueError" not in text  # no source lines: code can hold literals
    assert KEY not in caplog.text  # ...but not the message


@pytest.mark.usefixtures("sensitive_logging_off")
async def test_sensitive_logging_logs_the_message_and_the_traceback() -> None:
    stream = io.StringIO()
    handler = configure_logging("WARNING", stream=stream, sensitive_data=True)
    try:
        assert is_sensitive_logging_enabled()
        await _failing_fetch().run("go")
    finally:
        logging.getLogger("agentry").removeHandler(handler)
        logging.getLogger("agentry").setLevel(logging.NOTSET)

    text = stream.getvalue()
    assert f"tool 'fetch' failed: ValueError: upstream rejected key {KEY}" in text
    assert "Traceback (most recent call last):" in text
    assert text.rstrip().endswith(f"ValueError: upstream rejected key {KEY}")


@pytest.mark.usefixtures("sensitive_logging_off")
async def test_a_handler_with_the_redacting_filter_hides_secrets_in_messages_and_tracebacks() -> (
    None
):
    stream = io.StringIO()
    handler = configure_logging("WARNING", stream=stream, sensitive_data=True)
    handler.addFilter(RedactingFilter())
    try:
        await _failing_fetch().run("go")
    finally:
        logging.getLogger("agentry").removeHandler(handler)
        logging.getLogger("agentry").setLevel(logging.NOTSET)

    text = stream.getvalue()
    assert "tool 'fetch' failed: ValueError: upstream rejected key [REDACTED]" in text
    assert "Traceback (most recent call last):" in text
    assert "sk-" not in text


@pytest.mark.parametrize("sensitive", [False, True])
async def test_the_name_of_an_unknown_tool_is_logged_only_as_sensitive_data(
    sensitive: bool, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_logging, "_sensitive", sensitive)
    client = ScriptedChatClient([ScriptedChatClient.function_call(KEY, {}), "ok"])
    with caplog.at_level(logging.WARNING, logger="agentry.tools"):
        await Agent(client=client, tools=[fetch]).run("go")

    (record,) = caplog.records
    shown = repr(KEY) if sensitive else "(name hidden)"
    assert record.getMessage() == (
        f"the model called the unknown tool {shown}; available tools: fetch"
    )


def test_the_environment_can_turn_sensitive_logging_on() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from agentry.observability import is_sensitive_logging_enabled as on; print(on())",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": SRC, "AGENTRY_LOG_SENSITIVE_DATA": "true"},
        check=True,
    )
    assert result.stdout.strip() == "True"


def test_a_traceback_without_messages_keeps_chained_exceptions_apart() -> None:
    try:
        try:
            raise KeyError("password=hunter2")
        except KeyError as inner:
            raise RuntimeError("lookup of hunter2 failed") from inner
    except RuntimeError as error:
        text = traceback_without_messages(error)

    assert "hunter2" not in text
    first, second = text.split(
        "\nThe above exception was the direct cause of the following exception:\n\n"
    )
    assert first.startswith("Traceback (most recent call last):\n")
    assert first.endswith("KeyError (message hidden)\n")
    assert second.endswith("RuntimeError (message hidden)\n")
