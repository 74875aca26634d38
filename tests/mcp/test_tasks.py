"""Long-running tasks of the 2025-11-25 design, against `servers/tasks_legacy.py` started
as a process: the lifecycle, the fallbacks, and the faults of the task policy."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ToolExecutionError
from agentry.mcp import MCPConnectionError, MCPStdioTool, MCPTaskOptions

from .conftest import SERVERS

pytestmark = pytest.mark.timeout(60)

LEGACY = str(SERVERS / "tasks_legacy.py")


class LegacyServer:
    """One scenario of the hand-written task server, and what its processes recorded."""

    def __init__(self, state: Path, scenario: str) -> None:
        self.state = state
        self.scenario = scenario

    def tool(self, **options: Any) -> MCPStdioTool:
        options.setdefault("request_timeout", 5)
        return MCPStdioTool(
            "legacy", sys.executable, [LEGACY, str(self.state), self.scenario], **options
        )

    @property
    def record(self) -> dict[str, Any]:
        return json.loads(self.state.read_text())

    @property
    def events(self) -> list[str]:
        return list(self.record["events"])

    @property
    def cancels(self) -> list[str]:
        return [event for event in self.events if event.startswith("cancel")]


@pytest.fixture
def legacy(tmp_path: Path) -> Any:
    def start(scenario: str) -> LegacyServer:
        return LegacyServer(tmp_path / "state.json", scenario)

    return start


async def report(server: MCPStdioTool, topic: str = "otters") -> str:
    result = await server.call_tool("report", {"topic": topic})
    return result.content[0].text  # type: ignore[union-attr]


async def test_a_task_tool_is_polled_until_done_and_its_result_returned(legacy: Any) -> None:
    server = legacy("normal")
    options = MCPTaskOptions(default_ttl=timedelta(seconds=30))
    async with server.tool(task_options=options) as tool:
        text = await report(tool)

    assert text == "report on otters"
    events = server.events
    assert events[0] == "submit ttl=30000"
    assert events.count("get task-1") >= 2  # the task took several polls at the server's pace
    assert events[-1] == "result task-1"
    assert server.record["submissions"] == 1
    assert server.record["plain_calls"] == 0


async def test_without_default_ttl_the_server_chooses(legacy: Any) -> None:
    server = legacy("normal")
    async with server.tool() as tool:
        await report(tool)

    assert server.events[0] == "submit ttl=None"


async def test_a_tool_without_task_support_is_called_plainly(legacy: Any) -> None:
    server = legacy("normal")
    async with server.tool() as tool:
        result = await tool.call_tool("echo", {"text": "hi"})

    assert result.content[0].text == "hi"  # type: ignore[union-attr]
    assert server.record["submissions"] == 0


async def test_a_task_tool_outside_allowed_tools_is_still_called_as_a_task(legacy: Any) -> None:
    server = legacy("normal")
    async with server.tool(allowed_tools=["echo"]) as tool:
        assert [f.name for f in tool.functions] == ["echo"]
        text = await report(tool)

    assert text == "report on otters"
    assert (server.record["submissions"], server.record["plain_calls"]) == (1, 0)


async def test_a_server_that_ignores_the_task_request_answers_once(legacy: Any) -> None:
    server = legacy("ignore")
    async with server.tool() as tool:
        text = await report(tool)

    assert text == "report on otters (at once)"
    assert (server.record["submissions"], server.record["plain_calls"]) == (1, 0)


@pytest.mark.parametrize("code", ["32602", "32601"])
async def test_a_server_that_rejects_the_task_field_is_called_plainly(
    legacy: Any, code: str
) -> None:
    server = legacy(f"reject-{code}")
    async with server.tool() as tool:
        text = await report(tool)

    assert text == "report on otters (no task)"
    assert (server.record["submissions"], server.record["plain_calls"]) == (1, 1)


async def test_a_nonsense_answer_to_the_task_call_fails_without_calling_again(
    legacy: Any,
) -> None:
    server = legacy("garbled-create")
    async with server.tool() as tool:
        with pytest.raises(ToolExecutionError, match="neither a task nor a tool result"):
            await report(tool)

    assert (server.record["submissions"], server.record["plain_calls"]) == (1, 0)


async def test_a_connection_lost_before_the_task_id_is_never_resubmitted(legacy: Any) -> None:
    server = legacy("die-on-submit")
    async with server.tool() as tool:
        with pytest.raises(MCPConnectionError, match="connection lost; task state unknown"):
            await report(tool)
        after = await tool.call_tool("echo", {"text": "still here"})  # reconnects

    assert after.content[0].text == "still here"  # type: ignore[union-attr]
    assert server.record["submissions"] == 1
    assert server.record["starts"] == 2


async def test_a_connection_lost_after_the_task_id_reconnects_and_follows_the_same_task(
    legacy: Any,
) -> None:
    server = legacy("die-once-on-poll")
    async with server.tool() as tool:
        text = await report(tool)

    assert text == "report on otters"
    assert server.record["starts"] == 2  # the second server process answered the polls
    assert server.record["submissions"] == 1
    assert server.events[-1] == "result task-1"
    assert not server.cancels


async def test_calls_that_lose_the_same_connection_share_one_reconnect(legacy: Any) -> None:
    server = legacy("die-once-on-poll")
    async with server.tool() as tool:
        texts = await asyncio.gather(report(tool, "otters"), report(tool, "beavers"))

    assert texts == ["report on otters", "report on beavers"]
    assert server.record["starts"] == 2
    assert server.record["submissions"] == 2
    assert not server.cancels


async def test_a_task_tool_used_before_connecting_connects_and_runs_as_a_task(
    legacy: Any,
) -> None:
    server = legacy("normal")
    tool = server.tool()
    try:
        text = await report(tool)  # no `async with`: the call connects
    finally:
        await tool.close()

    assert text == "report on otters"
    assert server.record["submissions"] == 1


async def test_a_restarted_server_that_forgot_the_task_fails_the_call(legacy: Any) -> None:
    server = legacy("die-once-on-poll-forgetful")
    async with server.tool() as tool:
        with pytest.raises(ToolExecutionError, match=r"tasks/get failed: .*not found") as raised:
            await report(tool)

    assert "cancelling it on the server failed" in str(raised.value)
    assert server.record["submissions"] == 1


async def test_a_server_that_cannot_be_reached_again_abandons_the_task(legacy: Any) -> None:
    server = legacy("die-on-poll-no-restart")
    async with server.tool() as tool:
        with pytest.raises(ToolExecutionError, match="reconnecting failed") as raised:
            await report(tool)

    assert "cancelling it on the server failed" in str(raised.value)
    assert server.record["submissions"] == 1


async def test_max_task_wait_also_bounds_a_reconnect_that_hangs(legacy: Any) -> None:
    server = legacy("die-on-poll-hang-restart")
    options = MCPTaskOptions(max_task_wait=timedelta(seconds=1))
    # Without the bound, the reconnect would end after connect_timeout (2 s) with
    # "reconnecting failed"; the bound (1 s) ends it first.
    async with server.tool(task_options=options) as tool:
        tool.connect_timeout = 2  # for the reconnect (the first connect may be slower)
        with pytest.raises(ToolExecutionError, match="did not finish within max_task_wait"):
            await report(tool)

    assert server.record["submissions"] == 1


async def test_max_task_wait_is_a_deadline_the_cancel_goes_on_in_the_background(
    legacy: Any, caplog: pytest.LogCaptureFixture
) -> None:
    server = legacy("die-on-poll-hang-restart")  # the restarted server never answers
    options = MCPTaskOptions(max_task_wait=timedelta(seconds=1))
    tool = server.tool(task_options=options)
    try:
        await tool.connect()
        tool.connect_timeout = 2  # for the cancel's reconnect
        with pytest.raises(ToolExecutionError, match="did not finish within max_task_wait") as (
            raised
        ):
            await report(tool)
        # The error came at the deadline, not after the cancel (whose reconnect hangs
        # until connect_timeout): it is still being sent.
        assert "it is being cancelled on the server (in the background)" in str(raised.value)
        assert "could not cancel" not in caplog.text
    finally:
        await tool.close()  # waits for the cancel, which fails and is logged

    assert "could not cancel task 'task-1' on MCP server 'legacy'" in caplog.text
    assert server.record["submissions"] == 1


async def test_a_connection_lost_fetching_the_result_reconnects_once(legacy: Any) -> None:
    server = legacy("die-once-on-result")
    async with server.tool() as tool:
        text = await report(tool)

    assert text == "report on otters"
    assert server.record["starts"] == 2
    assert server.events.count("result task-1") == 2
    assert not server.cancels


async def test_a_second_loss_fetching_the_result_gives_up_and_cancels(legacy: Any) -> None:
    server = legacy("die-on-result")
    async with server.tool() as tool:
        with pytest.raises(ToolExecutionError, match="broke again during tasks/result"):
            await report(tool)

    assert server.cancels == ["cancel task-1"]


async def test_a_second_connection_loss_gives_up_and_cancels_the_task(legacy: Any) -> None:
    server = legacy("die-on-poll")
    async with server.tool() as tool:
        with pytest.raises(ToolExecutionError, match="broke again during tasks/get"):
            await report(tool)

    assert server.record["submissions"] == 1
    assert server.cancels == ["cancel task-1"]


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        ("garbled-poll", "answered tasks/get with not a task"),
        ("refuse-poll", "tasks/get failed: .*the task store is down"),
    ],
)
async def test_a_poll_that_makes_no_sense_abandons_and_cancels_the_task(
    legacy: Any, scenario: str, message: str
) -> None:
    server = legacy(scenario)
    async with server.tool() as tool:
        with pytest.raises(ToolExecutionError, match=message):
            await report(tool)

    assert server.cancels == ["cancel task-1"]


async def test_a_cancel_the_server_refuses_is_reported_not_claimed(legacy: Any) -> None:
    server = legacy("garbled-poll-refuse-cancel")
    async with server.tool() as tool:
        with pytest.raises(ToolExecutionError) as raised:
            await report(tool)

    assert "cancelling it on the server failed" in str(raised.value)
    assert "cannot cancel now" in str(raised.value)
    assert "was cancelled" not in str(raised.value)
    assert server.cancels == ["cancel task-1"]


@pytest.mark.parametrize("scenario", ["timeout-poll", "timeout-poll-408"])
async def test_polls_that_time_out_are_tried_again(legacy: Any, scenario: str) -> None:
    server = legacy(scenario)
    async with server.tool() as tool:
        text = await report(tool)

    assert text == "report on otters"
    assert server.events.count("get task-1") >= 3
    assert not server.cancels


async def test_a_poll_slower_than_the_request_timeout_is_tried_again(legacy: Any) -> None:
    server = legacy("slow-poll")
    async with server.tool(request_timeout=0.5) as tool:
        text = await report(tool)

    assert text == "report on otters"
    assert not server.cancels


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        ("fail", "failed on server 'legacy' .*the disk is full"),
        ("server-cancel", "cancelled task 'task-1' .*an operator stopped it"),
        ("input", "needs input \\(which topic did you mean\\?\\)"),
        ("tool-error", "failed: the sources were unreachable"),
        ("garbled-result", "completed, but server 'legacy' answered with not a tool result"),
    ],
)
async def test_a_task_that_ended_badly_fails_without_a_cancel(
    legacy: Any, scenario: str, message: str
) -> None:
    server = legacy(scenario)
    async with server.tool() as tool:
        with pytest.raises(ToolExecutionError, match=message):
            await report(tool)

    assert not server.cancels  # the server is done with it


async def test_max_task_wait_gives_up_and_cancels_the_task(legacy: Any) -> None:
    server = legacy("endless")
    options = MCPTaskOptions(max_task_wait=timedelta(seconds=0.5))
    async with server.tool(task_options=options) as tool:
        with pytest.raises(ToolExecutionError, match=r"did not finish within max_task_wait"):
            await report(tool)

    assert server.cancels == ["cancel task-1"]


@pytest.mark.parametrize("cancel_remote", [True, False])
async def test_cancelling_the_call_cancels_the_task_unless_told_not_to(
    legacy: Any, cancel_remote: bool
) -> None:
    server = legacy("endless")
    options = MCPTaskOptions(cancel_remote_task_on_local_cancellation=cancel_remote)
    async with server.tool(task_options=options) as tool:
        call = asyncio.create_task(report(tool))
        while "get task-1" not in (server.events if server.state.exists() else []):
            await asyncio.sleep(0.02)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    assert server.cancels == (["cancel task-1"] if cancel_remote else [])


async def test_an_agent_calls_a_task_tool_end_to_end(legacy: Any) -> None:
    server = legacy("normal")
    model = ScriptedChatClient(
        [ScriptedChatClient.function_call("report", {"topic": "beavers"}), "Here it is."]
    )
    async with server.tool() as tool:
        response = await Agent(client=model, tools=[tool]).run("A report on beavers, please.")

    assert response.text == "Here it is."
    results = [
        c.result for m in model.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    assert results == ["report on beavers"]


def test_task_options_are_frozen_and_checked() -> None:
    options = MCPTaskOptions(default_ttl=timedelta(seconds=1.5))
    assert options.ttl_milliseconds == 1500
    assert options.cancel_remote_task_on_local_cancellation is True
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.max_task_wait = timedelta(seconds=1)  # type: ignore[misc]
    with pytest.raises(ValueError, match="max_task_wait must be positive"):
        MCPTaskOptions(max_task_wait=timedelta(0))
    with pytest.raises(TypeError, match=r"default_ttl must be a datetime\.timedelta"):
        MCPTaskOptions(default_ttl=30)  # type: ignore[arg-type]


def test_task_options_are_replaced_whole() -> None:
    tool = MCPStdioTool("legacy", sys.executable, [LEGACY])
    assert tool.task_options is None  # the defaults, without creating experimental options
    tool.task_options = MCPTaskOptions(max_task_wait=timedelta(minutes=5))
    assert tool.task_options.max_wait_seconds == 300
    with pytest.raises(TypeError, match="task_options must be an MCPTaskOptions or None"):
        tool.task_options = {"max_task_wait": 5}  # type: ignore[assignment]
    tool.task_options = None
    assert tool.task_options is None
