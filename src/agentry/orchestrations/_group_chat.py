"""`GroupChatOrchestrator`: a manager picks who speaks next in a shared conversation."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from agentry.orchestrations._base import Orchestrator
from agentry.orchestrations._loop import ConversationLoop
from agentry.orchestrations._participants import (
    AgentReply,
    AgentTurn,
    ParticipantExecutor,
    is_agent,
)
from agentry.orchestrations._termination import TerminationLike, as_termination
from agentry.types import Message
from agentry.workflows import Workflow, WorkflowBuilder, WorkflowContext, WorkflowEvent, handler

if TYPE_CHECKING:
    from agentry.agents import Agent, SupportsAgentRun
    from agentry.workflows import CheckpointStorage

__all__ = ["GroupChatOrchestrator", "GroupChatState", "SpeakerSelector", "round_robin"]

MANAGER_ID = "group_chat_manager"
DEFAULT_GROUP_CHAT_ROUNDS = 10


@dataclass
class GroupChatState:
    """What a speaker selector sees.

    Attributes:
        conversation: The conversation so far.
        rounds: How many turns participants have taken.
        participants: Each participant's name and description, in order.
        last_speaker: Who spoke last (None before the first turn).
    """

    conversation: list[Message]
    rounds: int
    participants: dict[str, str] = field(default_factory=dict[str, str])
    last_speaker: str | None = None


SpeakerSelector = Callable[[GroupChatState], "str | Awaitable[str | None] | None"]
"""Picks the next speaker's name, or None to end the chat; may be a coroutine function."""


def round_robin(state: GroupChatState) -> str:
    """The default selector: participants speak in turn, in order."""
    names = list(state.participants)
    if state.last_speaker not in names:
        return names[0]
    return names[(names.index(state.last_speaker) + 1) % len(names)]


class GroupChatOrchestrator(Orchestrator):
    """Participants take turns in one conversation; a manager picks each next speaker.

    The manager is a function of `GroupChatState` returning a name (or None to end), the
    default `round_robin`, or an `Agent` asked to name the next speaker (as structured
    output: `{"next_speaker": "<name>" or null}`). The chat ends when the manager says so
    or the termination condition holds (default: 10 rounds). The Workflow Output is the list of
    messages the participants added.

    Args:
        participants: The agents.
        manager: A speaker selector function, or an agent that picks the speaker.
        termination: When to stop: a `TerminationCondition`, a function of
            `TerminationContext`, or a number of rounds (default 10).
        name: The workflow's name (default "group_chat").
        description: What the orchestration does.
        checkpoint_storage: Save a checkpoint here at every superstep.

    Example:
        >>> import asyncio
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> alice = ScriptedChatClient(["Hi, Bob.", "Bye."]).as_agent(name="alice")
        >>> bob = ScriptedChatClient(["Hi, Alice."]).as_agent(name="bob")
        >>> chat = GroupChatOrchestrator(participants=[alice, bob], termination=3)
        >>> [m.text for m in asyncio.run(chat.build().run("Talk.")).get_outputs()[0]]
        ['Hi, Bob.', 'Hi, Alice.', 'Bye.']
    """

    _default_name = "group_chat"
    _reserved_ids = (MANAGER_ID,)

    def __init__(
        self,
        participants: Sequence[SupportsAgentRun] = (),
        *,
        manager: SpeakerSelector | SupportsAgentRun | None = None,
        termination: TerminationLike | None = None,
        name: str | None = None,
        description: str | None = None,
        checkpoint_storage: CheckpointStorage | None = None,
    ) -> None:
        super().__init__(
            participants, name=name, description=description, checkpoint_storage=checkpoint_storage
        )
        self.manager: SpeakerSelector | SupportsAgentRun = round_robin
        self.termination = as_termination(
            termination if termination is not None else DEFAULT_GROUP_CHAT_ROUNDS
        )
        if manager is not None:
            self.with_manager(manager)

    def with_manager(self, manager: SpeakerSelector | SupportsAgentRun) -> GroupChatOrchestrator:
        """Pick speakers with `manager` (a selector function or an agent)."""
        if not callable(manager) and not is_agent(manager):
            raise TypeError(f"manager must be a speaker selector or an agent, not {manager!r}")
        self.manager = manager
        return self

    def with_termination(self, termination: TerminationLike) -> GroupChatOrchestrator:
        """Stop when `termination` holds (a condition, a predicate or a number of rounds)."""
        self.termination = as_termination(termination)
        return self

    def build(self) -> Workflow:
        """The orchestration as a new `Workflow`."""
        self._require_participants()
        participants = [ParticipantExecutor(a) for a in self.participants]
        descriptions = {p.name: p.agent.description or "" for p in participants}
        selector = (
            _AgentSelector(cast("Agent", self.manager))
            if is_agent(self.manager)
            else cast(SpeakerSelector, self.manager)
        )
        manager = _GroupChatManager(descriptions, selector, self.termination)
        builder = WorkflowBuilder(start_executor=manager, **self._builder_options(manager))
        for participant in participants:
            builder.add_edge(manager, participant).add_edge(participant, manager)
        return builder.build()


class _GroupChatManager(ConversationLoop):
    def __init__(
        self, descriptions: dict[str, str], selector: SpeakerSelector, termination: Any
    ) -> None:
        self.descriptions = descriptions
        self.selector = selector
        super().__init__(MANAGER_ID, list(descriptions), termination)

    async def start(
        self, conversation: list[Message], ctx: WorkflowContext[AgentTurn, list[Message]]
    ) -> None:
        self.begin(conversation)
        await self._next_turn(ctx)

    @handler
    async def on_reply(
        self, reply: AgentReply, ctx: WorkflowContext[AgentTurn, list[Message]]
    ) -> None:
        """Record a turn, then stop or pick the next speaker."""
        self.record(reply)
        if not await self.should_stop(ctx):
            await self._next_turn(ctx)

    async def _next_turn(self, ctx: WorkflowContext[AgentTurn, list[Message]]) -> None:
        state = GroupChatState(
            conversation=list(self.conversation),
            rounds=self.rounds,
            participants=dict(self.descriptions),
            last_speaker=self.last_speaker,
        )
        choice = self.selector(state)
        if inspect.isawaitable(choice):
            choice = await choice
        if choice is None:
            await self.stop("the manager ended the conversation", ctx)
            return
        if choice not in self.descriptions:
            fallback = round_robin(state)
            await ctx.add_event(
                WorkflowEvent.warning(
                    f"the manager picked {choice!r}, who is not a participant "
                    f"({', '.join(self.descriptions)}); {fallback!r} speaks instead"
                )
            )
            choice = fallback
        await self.send_turn(choice, ctx)


_SELECTION_PROMPT = """You manage a group conversation. The participants are:
{participants}
Read the conversation and decide who should speak next to move the task forward. If the
task is complete, end the conversation. Answer only with JSON:
{{"next_speaker": "<one of: {names}>" or null to end, "reason": "<why>"}}"""


class _AgentSelector:
    """Asks an agent for the next speaker, as structured output."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    async def __call__(self, state: GroupChatState) -> str | None:
        from agentry.orchestrations._ledgers import SpeakerChoice

        listing = "\n".join(
            f"- {name}" + (f": {description}" if description else "")
            for name, description in state.participants.items()
        )
        prompt = _SELECTION_PROMPT.format(participants=listing, names=", ".join(state.participants))
        messages = [*state.conversation, Message("user", [prompt])]
        response = await self.agent.run(messages, options={"response_format": SpeakerChoice})
        choice = cast(SpeakerChoice, response.value)
        return choice.next_speaker or None
