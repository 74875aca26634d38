"""Over HTTP, requests about a served task must name it in the `Mcp-Name` header: one
that names another task (or none) is refused with HEADER_MISMATCH (-32020)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    HEADER_MISMATCH,
    PROTOCOL_VERSION_META_KEY,
)

from .conftest import free_port, serving

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
VERSION = "2026-07-28"


@pytest.fixture(scope="module")
def served_tasks_url() -> Iterator[str]:
    port = free_port()
    command = [
        *(sys.executable, "-m", "agentry.cli", "serve", "mcp", "tests.mcp.served:agent"),
        *("--tasks", "--transport", "http", "--port", str(port)),
    ]
    with serving(command, port, cwd=ROOT, env=ENV) as url:
        yield url


def request(url: str, method: str, params: dict[str, Any], *, name: str | None) -> dict[str, Any]:
    """One JSON-RPC request of the 2026 protocol, from a client that takes tasks."""
    headers = {
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": method,
        "Accept": "application/json, text/event-stream",
    }
    if name is not None:
        headers["Mcp-Name"] = name
    meta: dict[str, Any] = {
        PROTOCOL_VERSION_META_KEY: VERSION,
        CLIENT_CAPABILITIES_META_KEY: {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    }
    body: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": {**params, "_meta": meta},
    }
    answer: dict[str, Any] = httpx.post(url, json=body, headers=headers, timeout=30).json()
    return answer


def start_task(url: str) -> str:
    call = {"name": "demo", "arguments": {"task": "slow"}}
    answer = request(url, "tools/call", call, name="demo")
    assert answer["result"]["resultType"] == "task"
    return str(answer["result"]["taskId"])


@pytest.mark.parametrize("method", ["tasks/get", "tasks/cancel"])
@pytest.mark.parametrize("header", ["0123456789abcdef0123456789abcdef", None])
def test_a_request_whose_mcp_name_is_not_its_task_is_refused(
    served_tasks_url: str, method: str, header: str | None
) -> None:
    task_id = start_task(served_tasks_url)

    answer = request(served_tasks_url, method, {"taskId": task_id}, name=header)

    assert answer["error"]["code"] == HEADER_MISMATCH
    assert "Mcp-Name header does not match the request's taskId" in answer["error"]["message"]
    # the task was not touched: it still runs
    status = request(served_tasks_url, "tasks/get", {"taskId": task_id}, name=task_id)
    assert status["result"]["status"] == "working"


def test_a_request_that_names_its_task_in_both_is_answered(served_tasks_url: str) -> None:
    task_id = start_task(served_tasks_url)

    answer = request(served_tasks_url, "tasks/get", {"taskId": task_id}, name=task_id)

    assert answer["result"]["taskId"] == task_id
