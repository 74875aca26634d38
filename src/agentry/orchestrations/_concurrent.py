"""`ConcurrentOrchestrator`: every agent answers the same input at once."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from agentry.agents import SupportsAgentRun
    from agentry.workflows import CheckpointStorage

__all__ = ["Aggregator", "ConcurrentOrchestrator", "last_messages"]

Aggregator = Callable[[list[AgentReply]], Any]
"""Combines the agents' replies (in participant order) into the Workflow Output; it may be
a coroutine function."""


def last_messages(replies: list[AgentReply]) -> list[Message]:
    """The default aggregator: the last message of each agent, in participant order."""
    return [reply.messages[-1] for reply in replies if reply.messages]


class ConcurrentOrchestrator(Orchestrator):
    """All agents get the same input and run at the same time; their replies are combined.

    The agents run in one superstep, concurrently: the run takes about as long as the
    slowest agent. The Workflow Output is what the aggregator returns: by default the last
    message of each agent (`last_messages`), in participant order.

    Args:
        participants: The agents.
        aggregator: Combines the list of `AgentReply` (in participant order) into the
            output; sync or async.
        name: The workflow's name (default "concurrent").
        description: What the orchestration does.
        checkpoint_storage: Save a checkpoint here at every superstep.

    Example:
        >>> import asyncio
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> pro = ScriptedChatClient(["Pro: fast."]).as_agent(name="pro")
        >>> con = ScriptedChatClient(["Con: costly."]).as_agent(name="con")
        >>> workflow = ConcurrentOrchestrator(participants=[pro, con]).build()
        >>> [m.text for m in asyncio.run(workflow.run("Rust?")).get_outputs()[0]]
        ['Pro: fast.', 'Con: costly.']
    """

    _default_name = "concurrent"
    _reserved_ids = ("input", "aggregator")

    def __init__(
        self,
        participants: Sequence[SupportsAgentRun] = (),
        *,
        aggregator: Aggregator | None = None,
        name: str | None = None,
        description: str | None = None,
        checkpoint_storage: CheckpointStorage | None = None,
    ) -> None:
        super().__init__(
            participants, name=name, description=description, checkpoint_storage=checkpoint_storage
        )
        self.aggregator: Aggregator = last_messages
        if aggregator is not None:
            self.with_aggregator(aggregator)

    def with_aggregator(self, aggregator: Aggregator) -> ConcurrentOrchestrator:
        """Combine the replies with `aggregator` instead of `last_messages`."""
        if not callable(aggregator):
            raise TypeError(
                f"aggregator must be a function of list[AgentReply], not {aggregator!r}"
            )
        self.aggregator = aggregator
        return self

    def build(self) -> Workflow:
        """The orchestration as a new `Workflow`."""
        self._require_participants()
        start = _Dispatch("input")
        participants = [ParticipantExecutor(a) for a in self.participants]
        end = _Aggregate("aggregator", self.aggregator, [p.id for p in participants])
        builder = WorkflowBuilder(start_executor=start, **self._builder_options(end))
        builder.add_fan_out_edges(start, participants)
        builder.add_fan_in_edges(participants, end)
        return builder.build()


class _Dispatch(ConversationStart):
    async def start(
        self, conversation: list[Message], ctx: WorkflowContext[AgentTurn, list[Message]]
    ) -> None:
        await ctx.send_message(AgentTurn(conversation))


class _Aggregate(Executor):
    def __init__(self, id: str, aggregator: Aggregator, order: list[str]) -> None:
        self.aggregator = aggregator
        self.order = order
        super().__init__(id)

    @handler
    async def combine(self, replies: list[AgentReply], ctx: WorkflowContext[Never, object]) -> None:
        ranked = sorted(replies, key=lambda r: self.order.index(r.agent))
        result = self.aggregator(ranked)
        if inspect.isawaitable(result):
            result = await result
        await ctx.yield_output(result)
