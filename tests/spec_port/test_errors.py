"""Ported `except` clauses: the spec's error names and where agentry keeps them."""

from __future__ import annotations

import pytest
from typing_extensions import Never

from agentry import Agent, WorkflowBuilder, WorkflowContext, executor, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import (
    AgentryError,
    ChatClientError,
    ContentError,
    MiddlewareError,
    ToolError,
    ToolExecutionError,
    ToolExecutionException,
)
from agentry.mcp import MCPConnectionError
from agentry.workflows import (
    ExecutorFailedException,
    WorkflowCheckpointException,
    WorkflowConvergenceException,
    WorkflowException,
    WorkflowRunnerException,
)


async def test_a_tool_raising_the_spec_s_exception_tells_the_model_why() -> None:
    @tool
    def book(room: str) -> str:
        """Book a meeting room."""
        raise ToolExecutionException(f"room {room} is taken; pick another")

    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("book", {"room": "B2"}),
            lambda messages, options: str(messages[-1].contents[0].result),
        ]
    )
    response = await Agent(client=model, tools=[book]).run("Book B2.")

    assert ToolExecutionException is ToolExecutionError
    assert "room B2 is taken; pick another" in response.text


def test_the_error_families_share_one_base() -> None:
    for error in (ToolError, ChatClientError, MiddlewareError, ContentError, WorkflowException):
        assert issubclass(error, AgentryError)
    assert issubclass(MCPConnectionError, ToolExecutionException)
    assert issubclass(WorkflowConvergenceException, WorkflowRunnerException)
    assert issubclass(WorkflowCheckpointException, WorkflowException)


async def test_a_failing_executor_is_caught_as_a_workflow_exception() -> None:
    @executor(id="broken")
    async def broken(text: str, ctx: WorkflowContext[Never, str]) -> None:
        raise RuntimeError("disk full")

    workflow = WorkflowBuilder(start_executor=broken).build()
    with pytest.raises(WorkflowException) as caught:
        await workflow.run("go")

    assert isinstance(caught.value, ExecutorFailedException)
    assert caught.value.executor_id == "broken"
    assert isinstance(caught.value.__cause__, RuntimeError)
