"""`ConversationLoop`: the central executor of group chat, magentic and handoff.

It owns the shared conversation, counts agent turns, and checks the termination
condition after each turn, the same way in all three orchestrations.
"""

from __future__ import annotations

from typing import Any

from agentry.orchestrations._participants import (
    TERMINATED_EVENT,
    AgentReply,
    AgentTurn,
    ConversationStart,
)
from agentry.orchestrations._termination import TerminationCondition, TerminationContext
from agentry.types import Message
from agentry.workflows import WorkflowContext, WorkflowEvent

__all__ = ["ConversationLoop"]


class ConversationLoop(ConversationStart):
    """Keeps the conversation of a looping orchestration and decides when it ends.

    Subclasses implement `start` and a handler for `AgentReply` that calls `record`, then
    `should_stop`, then picks who speaks next with `send_turn`.

    Args:
        id: The executor id.
        participants: The participants' names.
        termination: The condition checked after every agent turn.
    """

    def __init__(self, id: str, participants: list[str], termination: TerminationCondition) -> None:
        self.participants = participants
        self.termination = termination
        self.conversation: list[Message] = []
        self.input_length = 0
        self.rounds = 0
        self.last_speaker: str | None = None
        super().__init__(id)

    def begin(self, conversation: list[Message]) -> None:
        """Reset for a new run on `conversation`."""
        self.conversation = list(conversation)
        self.input_length = len(conversation)
        self.rounds = 0
        self.last_speaker = None

    def record(self, reply: AgentReply) -> None:
        """Add a participant's turn to the conversation."""
        self.conversation.extend(reply.messages)
        self.rounds += 1
        self.last_speaker = reply.agent

    @property
    def new_messages(self) -> list[Message]:
        """What the orchestration added to its input."""
        return self.conversation[self.input_length :]

    def termination_context(self) -> TerminationContext:
        """What the termination condition sees now."""
        return TerminationContext(
            conversation=list(self.conversation),
            rounds=self.rounds,
            last_speaker=self.last_speaker,
            participants=list(self.participants),
        )

    async def should_stop(self, ctx: WorkflowContext[AgentTurn, list[Message]]) -> bool:
        """Check the termination condition; when it holds, report it and `finish`."""
        reason = await self.termination.check_async(self.termination_context())
        if reason is None:
            return False
        await self.stop(reason, ctx)
        return True

    async def stop(self, reason: str, ctx: WorkflowContext[AgentTurn, list[Message]]) -> None:
        """End the orchestration: emit the termination event, then `finish`."""
        await ctx.add_event(WorkflowEvent(TERMINATED_EVENT, reason))
        await self.finish(ctx)

    async def finish(self, ctx: WorkflowContext[AgentTurn, list[Message]]) -> None:
        """Yield the Workflow Output (by default the messages the participants added)."""
        await ctx.yield_output(self.new_messages)

    async def send_turn(self, speaker: str, ctx: WorkflowContext[AgentTurn, list[Message]]) -> None:
        """Ask `speaker` to answer the conversation."""
        await ctx.send_message(AgentTurn(list(self.conversation)), target_id=speaker)

    async def on_checkpoint_save(self) -> dict[str, Any]:
        return {
            "conversation": list(self.conversation),
            "input_length": self.input_length,
            "rounds": self.rounds,
            "last_speaker": self.last_speaker,
        }

    async def on_checkpoint_restore(self, state: dict[str, Any]) -> None:
        self.conversation = list(state.get("conversation", []))
        self.input_length = int(state.get("input_length", 0))
        self.rounds = int(state.get("rounds", 0))
        self.last_speaker = state.get("last_speaker")
