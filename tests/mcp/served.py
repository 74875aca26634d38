"""What the `serve mcp` tests serve: the demo agent, and a workflow."""

from __future__ import annotations

from typing_extensions import Never

from agentry import Message
from agentry.workflows import WorkflowBuilder, WorkflowContext, executor
from tests.a2a.demo_agent import agent, build

__all__ = ["SHOUTING_WORKFLOW", "agent", "build"]


@executor
async def shout(messages: list[Message], ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(messages[-1].text.upper() + "!")


SHOUTING_WORKFLOW = WorkflowBuilder(start_executor=shout, name="shouter").build()
