"""When an MCP server fails, the error names the real cause: a server process's exit
status and last words, stray output on stdio, an HTTP status; and a failed connect is
reported at its timeout, not after the server process is stopped."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from agentry.mcp import MCPConnectionError, MCPStdioTool, MCPStreamableHTTPTool

from .conftest import SERVERS, basic_stdio, free_port, serving

pytestmark = pytest.mark.timeout(60)

MISBEHAVING = str(SERVERS / "misbehaving.py")


def misbehaving(mode: str, *args: str, **options: object) -> MCPStdioTool:
    return MCPStdioTool(
        "weather",
        sys.executable,
        [MISBEHAVING, mode, *args],
        **options,  # type: ignore[arg-type]
    )


def running(pid: int) -> bool:
    """Whether process `pid` exists and has not exited (a zombie has)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


async def test_a_server_that_crashes_at_start_is_reported_with_its_status_and_stderr() -> None:
    errlog = io.StringIO()
    tool = misbehaving("crash-at-start", errlog=errlog)

    with pytest.raises(MCPConnectionError) as raised:
        await tool.connect()

    message = str(raised.value)
    assert message.startswith(
        "cannot connect to MCP server 'weather': the server process exited with status 3; "
        "the end of its standard error:\n"
    )
    assert "    KeyError: 'API_KEY'" in message
    assert "KeyError: 'API_KEY'" in errlog.getvalue()  # still passed on as it came


async def test_a_server_that_dies_during_a_call_is_reported_with_its_status() -> None:
    async with basic_stdio() as server:
        with pytest.raises(MCPConnectionError) as raised:
            await server.call_tool("die", {})

    assert "broke during the tool 'die': the server process exited with status 3" in str(
        raised.value
    )


async def test_stray_output_on_stdout_is_named_when_connecting_times_out() -> None:
    tool = misbehaving("stray-output", connect_timeout=2)

    with pytest.raises(MCPConnectionError, match="took longer than 2 s") as raised:
        await tool.connect()
    await tool.close()

    assert re.search(
        r"it wrote \d+ line\(s\) to its standard output that are not MCP messages "
        r"\(first: 'Starting the weather server...'\); a stdio server must write only MCP "
        r"messages there",
        str(raised.value),
    )


async def test_a_failed_connect_is_reported_before_the_server_process_is_stopped(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "pid"
    # A server that never answers and ignores SIGTERM: stopping it takes the whole
    # escalation (its input closed, a grace period, SIGTERM, another, SIGKILL).
    stubborn = f"trap '' TERM; echo $$ > {pid_file}; exec sleep 600"
    tool = MCPStdioTool("stubborn", "sh", ["-c", stubborn], connect_timeout=1)

    with pytest.raises(MCPConnectionError, match="took longer than 1 s"):
        await tool.connect()

    # The error came at the timeout, while the server is still being stopped in the
    # background; close() waits for that.
    pid = int(pid_file.read_text())
    assert running(pid)
    await tool.close()
    assert not running(pid)


async def test_an_http_401_is_named_with_its_challenge() -> None:
    port = free_port()
    with serving([sys.executable, MISBEHAVING, "unauthorized", str(port)], port) as url:
        tool = MCPStreamableHTTPTool("crm", url, headers={"Authorization": "Bearer old"})
        with pytest.raises(MCPConnectionError) as raised:
            await tool.connect()

    assert str(raised.value) == (
        "cannot connect to MCP server 'crm': the server answered HTTP 401 Unauthorized "
        '(WWW-Authenticate: Bearer error="invalid_token"): check the credentials sent with '
        "headers= (for example the Authorization header)"
    )
