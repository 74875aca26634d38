"""`agentry serve a2a MODULE:OBJECT` in a real subprocess, and how targets are loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from a2a.types import GetTaskRequest, TaskState

from agentry.a2a._serve import load_agent
from agentry.errors import AgentryError

from .conftest import a2a_client
from .helpers import artifact_text, send_blocking, user_message
from .processes import ROOT, served

pytestmark = pytest.mark.timeout(120)  # a hang guard: two restarts on a busy machine


@asynccontextmanager
async def agentry_serve(*arguments: str) -> AsyncGenerator[str, None]:
    async with served(*arguments) as server:
        yield server.url


async def test_served_process_keeps_tasks_across_a_restart(tmp_path: Path) -> None:
    database = str(tmp_path / "served.sqlite")
    target = "tests.a2a.demo_agent:agent"
    async with agentry_serve(target, "--database", database, "--log-level", "warning") as url:
        async with httpx.AsyncClient() as http:
            card = (await http.get(url + "/.well-known/agent-card.json")).json()
        async with a2a_client(url, streaming=False) as client:
            done = await send_blocking(client, user_message("add 4 and 5"))
    assert card["name"] == "demo"
    assert card["supportedInterfaces"][0]["url"] == url + "/"
    assert artifact_text(done) == "Tool result: 9"
    async with (
        agentry_serve(target, "--database", database, "--log-level", "warning") as url,
        a2a_client(url, streaming=False) as client,
    ):
        fetched = await client.get_task(GetTaskRequest(id=done.id))
        more = await send_blocking(client, user_message("count", context_id=done.context_id))
    assert fetched.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(fetched) == "Tool result: 9"
    assert artifact_text(more) == "seen 2 user messages"


def test_bad_target_exits_with_a_clear_message() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "agentry.cli", "serve", "a2a", "json:nothing"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert completed.returncode == 2
    assert completed.stderr.startswith("error: 'json' has no 'nothing'; it defines: ")


def test_load_agent_accepts_agents_factories_and_workflow_like_objects() -> None:
    from .demo_agent import agent

    assert load_agent("tests.a2a.demo_agent:agent") is agent
    assert load_agent("tests.a2a.demo_agent:build").name == "demo"
    with pytest.raises(AgentryError, match="MODULE:OBJECT"):
        load_agent("no_colon")
    with pytest.raises(AgentryError, match="no module named"):
        load_agent("no_such_module_here:agent")
    with pytest.raises(AgentryError, match="not an agent"):
        load_agent("tests.a2a.demo_agent:re")


def test_load_agent_turns_a_workflow_into_an_agent() -> None:
    from agentry.workflows import WorkflowAgent

    served = load_agent("tests.a2a.test_workflows:GREETING_WORKFLOW")
    assert isinstance(served, WorkflowAgent)
    assert served.name == "greeter"
