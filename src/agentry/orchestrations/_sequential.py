"""`SequentialOrchestrator`: agents speak one after another over a shared conversation."""

from __future__ import annotations

from typing_extensions import Never

from agentry.orchestrations._base import Orchestrator
from agentry.orchestrations._participants import (
    AgentReply,
    AgentTurn,
    ConversationStart,
    ParticipantExecutor,
)
from agentry.types import Message
from agentry.workflows import Executor, Workflow, WorkflowBuilder, WorkflowContext, handler

__all__ = ["SequentialOrchestrator"]

_INPUT_LENGTH = "sequential.input_length"


class SequentialOrchestrator(Orchestrator):
    """Agents answer in order; each sees the input and everything said before it.

    The Workflow Output is the list of messages the agents added. Each agent's response
    (or, when streaming, its updates) is Intermediate Output of its executor.

    Args:
        participants: The agents, in speaking order.
        name: The workflow's name (default "sequential").
        description: What the orchestration does.
        checkpoint_storage: Save a checkpoint here at every superstep.

    Example:
        >>> import asyncio
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> writer = ScriptedChatClient(["A draft."]).as_agent(name="writer")
        >>> editor = ScriptedChatClient(["An edit."]).as_agent(name="editor")
        >>> workflow = SequentialOrchestrator(participants=[writer, editor]).build()
        >>> [m.text for m in asyncio.run(workflow.run("Write.")).get_outputs()[0]]
        ['A draft.', 'An edit.']
    """

    _default_name = "sequential"
    _reserved_ids = ("input", "output")

    def build(self) -> Workflow:
        """The orchestration as a new `Workflow`."""
        self._require_participants()
        start = _SequentialStart("input")
        end = _SequentialEnd("output")
        chain: list[object] = [start, *(ParticipantExecutor(a) for a in self.participants), end]
        builder = WorkflowBuilder(start_executor=start, **self._builder_options(end))
        return builder.add_chain(chain).build()


class _SequentialStart(ConversationStart):
    async def start(
        self, conversation: list[Message], ctx: WorkflowContext[AgentTurn, list[Message]]
    ) -> None:
        ctx.set_state(_INPUT_LENGTH, len(conversation))
        await ctx.send_message(AgentTurn(conversation))


class _SequentialEnd(Executor):
    @handler
    async def finish(self, reply: AgentReply, ctx: WorkflowContext[Never, list[Message]]) -> None:
        start = int(ctx.get_state(_INPUT_LENGTH, 0))
        await ctx.yield_output(reply.conversation[start:])
