"""MCP servers for the tests, started as real processes."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agentry.mcp import MCPStdioTool, MCPStreamableHTTPTool

SERVERS = Path(__file__).parent / "servers"
BASIC = str(SERVERS / "basic.py")


def basic_stdio(**options: Any) -> MCPStdioTool:
    """The test server `servers/basic.py`, over stdio."""
    options.setdefault("request_timeout", 20)
    return MCPStdioTool("basic", sys.executable, [BASIC], **options)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[Any], timeout: float = 20) -> None:
    """Wait until something listens on `port` (or fail when the process ends first)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode} before listening")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listened on port {port} within {timeout} s")


@contextmanager
def serving(command: list[str], port: int, **popen: Any) -> Generator[str, None, None]:
    """Run a server process until the block ends; its `/mcp` URL once it listens."""
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **popen
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="module")
def basic_http_url() -> Iterator[str]:
    """`servers/basic.py` over streamable HTTP on a free port of 127.0.0.1."""
    port = free_port()
    with serving([sys.executable, BASIC, "http", str(port)], port) as url:
        yield url


def basic_http(url: str, **options: Any) -> MCPStreamableHTTPTool:
    options.setdefault("request_timeout", 20)
    return MCPStreamableHTTPTool("basic", url, **options)


ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = (
    ROOT / ".mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
)
"""`@modelcontextprotocol/server-everything`, installed by `make mcp-servers`."""


def everything_command(transport: str) -> list[str]:
    if not EVERYTHING.is_file():
        raise FileNotFoundError(
            f"{EVERYTHING} is missing: run `make mcp-servers` (the test set-up installs it)"
        )
    return ["node", str(EVERYTHING), transport]


@pytest.fixture(scope="module")
def everything_http_url() -> Iterator[str]:
    """server-everything over streamable HTTP on a free port of 127.0.0.1."""
    import os

    port = free_port()
    environment = {**os.environ, "PORT": str(port)}
    with serving(everything_command("streamableHttp"), port, env=environment) as url:
        yield url
