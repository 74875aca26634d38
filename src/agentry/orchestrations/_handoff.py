"""`HandoffOrchestrator`: agents hand the conversation to each other through tools."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from agentry.middleware import FunctionInvocationContext
from agentry.orchestrations._base import Orchestrator
from agentry.orchestrations._errors import OrchestrationError
from agentry.orchestrations._loop import ConversationLoop
from agentry.orchestrations._participants import (
    AgentReply,
    AgentTurn,
    ParticipantExecutor,
    is_agent,
    participant_name,
)
from agentry.orchestrations._termination import TerminationLike, as_termination
from agentry.tools import FunctionTool
from agentry.types import Message
from agentry.workflows import (
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowEvent,
    handler,
    response_handler,
)

if TYPE_CHECKING:
    from agentry.agents import SupportsAgentRun
    from agentry.workflows import CheckpointStorage

__all__ = [
    "HANDOFF_EVENT",
    "HandoffOrchestrator",
    "HandoffUserInputRequest",
    "handoff_tool_name",
]

ROUTER_ID = "handoff_router"
DEFAULT_HANDOFF_ROUNDS = 20
HANDOFF_EVENT = "handoff"
"""The type of the event emitted when an agent hands over; its data is `(source, target)`."""

AgentOrName = Any
"""A participant agent, or its name."""


def handoff_tool_name(target: str) -> str:
    """The name of the tool that hands the conversation to `target`."""
    return "handoff_to_" + re.sub(r"[^A-Za-z0-9_-]", "_", target)


@dataclass
class HandoffUserInputRequest:
    """The request a handoff run makes when an agent answered and waits for the user.

    Answer it with the user's reply (text or a `Message`):
    `workflow.run(responses={request_id: "my reply"})`.

    Attributes:
        agent: The agent that answered and will read the reply.
        messages: What the agents said since the user last spoke.
        conversation: The whole conversation so far.
    """

    agent: str
    messages: list[Message] = field(default_factory=list[Message])
    conversation: list[Message] = field(default_factory=list[Message])


class HandoffOrchestrator(Orchestrator):
    """Agents pass the conversation to each other by calling generated handoff tools.

    Each agent gets one `handoff_to_<name>` tool per agent it may hand over to (by default
    every other agent; restrict that with `handoffs=` or `add_handoff`). Calling one ends
    the agent's turn and gives the floor to the target, which sees the whole conversation.
    A call to a tool that is not offered (an unknown target) gets an error result naming
    the tools that exist, and the agent carries on. When an agent answers without handing
    over, the run asks the user (a `HandoffUserInputRequest` through `request_info`,
    answered with text) and the same agent reads the reply; with `interactive=False` the
    run ends there instead. The termination condition (default: 20 agent turns) bounds
    handoff cycles. Each time the run pauses or ends, the messages the agents added since
    the user last spoke are Workflow Output.

    Args:
        participants: The agents.
        start_agent: The agent that speaks first (default: the first participant).
        handoffs: Who may hand over to whom: `{source: [targets]}`, agents or names.
        termination: When to stop: a `TerminationCondition`, a function of
            `TerminationContext`, or a number of agent turns (default 20).
        interactive: Ask the user when an agent answers without handing over.
        name: The workflow's name (default "handoff").
        description: What the orchestration does.
        checkpoint_storage: Save a checkpoint here at every superstep.

    Example:
        >>> import asyncio
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> triage = ScriptedChatClient([ScriptedChatClient.function_call("handoff_to_billing")])
        >>> billing = ScriptedChatClient(["Your refund is on its way."])
        >>> workflow = HandoffOrchestrator(
        ...     participants=[triage.as_agent(name="triage"), billing.as_agent(name="billing")],
        ...     interactive=False,
        ... ).build()
        >>> [m.text for m in asyncio.run(workflow.run("Refund me.")).get_outputs()[0]]
        ['Your refund is on its way.']
    """

    _default_name = "handoff"
    _reserved_ids = (ROUTER_ID,)

    def __init__(
        self,
        participants: Sequence[SupportsAgentRun] = (),
        *,
        start_agent: AgentOrName | None = None,
        handoffs: Mapping[AgentOrName, Sequence[AgentOrName]] | None = None,
        termination: TerminationLike | None = None,
        interactive: bool = True,
        name: str | None = None,
        description: str | None = None,
        checkpoint_storage: CheckpointStorage | None = None,
    ) -> None:
        super().__init__(
            participants, name=name, description=description, checkpoint_storage=checkpoint_storage
        )
        self.start_agent: str | None = None
        self.handoffs: dict[str, list[str]] = {}
        self.termination = as_termination(
            termination if termination is not None else DEFAULT_HANDOFF_ROUNDS
        )
        self.interactive = interactive
        if start_agent is not None:
            self.with_start_agent(start_agent)
        for source, targets in (handoffs or {}).items():
            self.add_handoff(source, targets)

    def with_start_agent(self, agent: AgentOrName) -> HandoffOrchestrator:
        """Let `agent` (or the agent of that name) speak first."""
        self.start_agent = _name_of(agent)
        return self

    def add_handoff(
        self, source: AgentOrName, targets: Sequence[AgentOrName] | AgentOrName
    ) -> HandoffOrchestrator:
        """Let `source` hand over to `targets`. Once any handoff is added, agents may hand
        over only along the handoffs added."""
        many: list[object] = [targets] if isinstance(targets, str) or is_agent(targets) else []
        if not many:
            many = list(cast("Sequence[object]", targets))
        routes = self.handoffs.setdefault(_name_of(source), [])
        for target in many:
            name = _name_of(target)
            if name not in routes:
                routes.append(name)
        return self

    def with_termination(self, termination: TerminationLike) -> HandoffOrchestrator:
        """Stop when `termination` holds (a condition, a predicate or a number of turns)."""
        self.termination = as_termination(termination)
        return self

    def _routes(self) -> dict[str, list[str]]:
        names = self.participant_names
        if not self.handoffs:
            return {source: [t for t in names if t != source] for source in names}
        for source, targets in self.handoffs.items():
            for name in (source, *targets):
                if name not in names:
                    raise OrchestrationError(
                        f"the handoff {source!r} -> {targets} names {name!r}, who is not a "
                        f"participant ({', '.join(names)})"
                    )
            if source in targets:
                raise OrchestrationError(f"{source!r} cannot hand the conversation to itself")
        return {source: list(self.handoffs.get(source, [])) for source in names}

    def build(self) -> Workflow:
        """The orchestration as a new `Workflow`.

        Raises:
            OrchestrationError: The handoffs or the start agent name someone who is not a
                participant.
        """
        self._require_participants()
        names = self.participant_names
        start = self.start_agent or names[0]
        if start not in names:
            raise OrchestrationError(
                f"the start agent {start!r} is not a participant ({', '.join(names)})"
            )
        tools: dict[str, str] = {}
        for name in names:
            clash = tools.setdefault(handoff_tool_name(name), name)
            if clash != name:
                raise OrchestrationError(
                    f"the participants {clash!r} and {name!r} would share the handoff tool "
                    f"{handoff_tool_name(name)!r}; rename one of them"
                )
        routes = self._routes()
        descriptions = {participant_name(a): a.description or "" for a in self.participants}
        participants = [
            _HandoffParticipant(
                agent, {t: descriptions[t] for t in routes[participant_name(agent)]}
            )
            for agent in self.participants
        ]
        router = _HandoffRouter(names, start, self.termination, self.interactive)
        builder = WorkflowBuilder(start_executor=router, **self._builder_options(router))
        for participant in participants:
            builder.add_edge(router, participant).add_edge(participant, router)
        return builder.build()


def _name_of(agent: AgentOrName) -> str:
    if isinstance(agent, str):
        return agent
    return participant_name(agent)


class _HandoffParticipant(ParticipantExecutor):
    """A participant offered one handoff tool per allowed target."""

    def __init__(self, agent: SupportsAgentRun, targets: dict[str, str]) -> None:
        self.targets = targets
        self._choice: str | None = None
        super().__init__(agent)

    def turn_tools(self) -> list[Any]:
        self._choice = None
        return [self._tool(target, about) for target, about in self.targets.items()]

    def _tool(self, target: str, about: str) -> FunctionTool:
        async def hand_over(context: FunctionInvocationContext) -> str:
            if self._choice is None:
                self._choice = target
            context.terminate = True
            return f"Handed the conversation to {target}."

        return FunctionTool(
            func=hand_over,
            name=handoff_tool_name(target),
            description=f"Hand the conversation over to {target}"
            + (f": {about}" if about else "."),
        )

    def complete(self, reply: AgentReply) -> AgentReply:
        reply.handoff_to = self._choice
        return reply


class _HandoffRouter(ConversationLoop):
    """Keeps the conversation, follows handoffs, and asks the user when an agent answers."""

    def __init__(
        self, participants: list[str], start: str, termination: Any, interactive: bool
    ) -> None:
        self.start_agent = start
        self.interactive = interactive
        self.current = start
        self.shown = 0
        super().__init__(ROUTER_ID, participants, termination)

    async def start(
        self, conversation: list[Message], ctx: WorkflowContext[AgentTurn, list[Message]]
    ) -> None:
        self.begin(conversation)
        self.current = self.start_agent
        self.shown = len(conversation)
        await self.send_turn(self.current, ctx)

    @handler
    async def on_reply(
        self, reply: AgentReply, ctx: WorkflowContext[AgentTurn, list[Message]]
    ) -> None:
        """Follow the agent's handoff, or wait for the user, or stop."""
        self.record(reply)
        target = reply.handoff_to
        if target is not None:
            await ctx.add_event(WorkflowEvent(HANDOFF_EVENT, (reply.agent, target)))
        if await self.should_stop(ctx):
            return
        if target is not None:
            self.current = target
            await self.send_turn(target, ctx)
        elif self.interactive:
            unseen = self._unseen()
            await ctx.yield_output(unseen)
            request = HandoffUserInputRequest(reply.agent, unseen, list(self.conversation))
            await ctx.request_info(request, str | Message)
        else:
            await self.finish(ctx)

    @response_handler
    async def on_user_input(
        self,
        original_request: HandoffUserInputRequest,
        response: str | Message,
        ctx: WorkflowContext[AgentTurn, list[Message]],
    ) -> None:
        """Add the user's reply and let the agent that asked read it."""
        message = Message("user", [response]) if isinstance(response, str) else response
        self.conversation.append(message)
        self.shown = len(self.conversation)
        if not await self.should_stop(ctx):
            await self.send_turn(self.current, ctx)

    def _unseen(self) -> list[Message]:
        unseen = self.conversation[self.shown :]
        self.shown = len(self.conversation)
        return unseen

    async def finish(self, ctx: WorkflowContext[AgentTurn, list[Message]]) -> None:
        await ctx.yield_output(self._unseen())

    async def on_checkpoint_save(self) -> dict[str, Any]:
        return {**await super().on_checkpoint_save(), "current": self.current, "shown": self.shown}

    async def on_checkpoint_restore(self, state: dict[str, Any]) -> None:
        await super().on_checkpoint_restore(state)
        self.current = str(state.get("current", self.start_agent))
        self.shown = int(state.get("shown", 0))
