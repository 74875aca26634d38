"""What every orchestration shares: the turn messages, the participant executor, and
turning the run's input into a conversation."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentry.types import AgentResponse, AgentResponseUpdate, Content, Message
from agentry.workflows import (
    Executor,
    WorkflowContext,
    WorkflowEvent,
    handler,
    response_handler,
)

if TYPE_CHECKING:
    from agentry.agents import SupportsAgentRun

__all__ = [
    "AGENT_TURN_EVENT",
    "TERMINATED_EVENT",
    "AgentReply",
    "AgentTurn",
    "ConversationStart",
    "ParticipantExecutor",
    "is_agent",
    "participant_name",
    "shareable_messages",
    "to_conversation",
]

AGENT_TURN_EVENT = "agent_turn_started"
"""The type of the event a participant emits when it starts to speak; its data is the
participant's name (also its `executor_id`)."""

TERMINATED_EVENT = "orchestration_terminated"
"""The type of the event an orchestration emits when a termination condition stops it;
its data is the reason."""

_SHARED_CONTENT_TYPES = frozenset({"text", "data", "uri", "error"})


@dataclass
class AgentTurn:
    """A request for one participant to speak.

    Attributes:
        conversation: The conversation the participant answers.
    """

    conversation: list[Message]


@dataclass
class AgentReply:
    """What one participant said in one turn.

    Attributes:
        agent: The participant's name.
        messages: Its new messages, as shared with the others (tool calls left out).
        conversation: The conversation it answered, followed by `messages`.
        handoff_to: In a handoff orchestration, the participant it handed over to.
    """

    agent: str
    messages: list[Message]
    conversation: list[Message] = field(default_factory=list[Message])
    handoff_to: str | None = None

    @property
    def text(self) -> str:
        """The text of its messages."""
        return "\n".join(m.text for m in self.messages if m.text)


def is_agent(value: object) -> bool:
    """Whether `value` looks like an agent (has `run` and `create_session`)."""
    return callable(getattr(value, "run", None)) and hasattr(value, "create_session")


def participant_name(agent: SupportsAgentRun) -> str:
    """The name a participant goes by: the agent's name, else its id."""
    return agent.name or agent.id


def to_conversation(value: str | Message | Sequence[Message]) -> list[Message]:
    """The run's input as a list of messages (text becomes a user message)."""
    if isinstance(value, str):
        return [Message("user", [value])]
    if isinstance(value, Message):
        return [value]
    return list(value)


def shareable_messages(messages: Sequence[Message], author: str) -> list[Message]:
    """An agent's messages as the other participants see them.

    Tool calls, tool results and reasoning are the agent's own business: they are left
    out, and messages left empty are dropped. Each message is named after its author.
    """
    shared: list[Message] = []
    for message in messages:
        contents = [c for c in message.contents if c.type in _SHARED_CONTENT_TYPES]
        if not contents or message.role == "tool":
            continue
        shared.append(
            Message(
                message.role,
                contents,
                author_name=message.author_name or author,
                # an id keeps consecutive messages apart when they are streamed as updates
                message_id=message.message_id or uuid.uuid4().hex,
            )
        )
    return shared


class ParticipantExecutor(Executor):
    """Runs one agent on the conversation it receives and sends back its `AgentReply`.

    The agent gets the whole conversation on each turn (it keeps no history of its own),
    so the orchestration owns the conversation and checkpoints hold all of it. When the
    caller streams, the agent's updates are yielded as they come; otherwise its whole
    response is yielded. Tool calls that need approval become requests of the run (the
    `function_approval_request` content; answer with its approval response), and the
    turn goes on once they are all answered.

    Args:
        agent: The agent.
        id: The executor id (default: the participant's name).
    """

    def __init__(self, agent: SupportsAgentRun, *, id: str | None = None) -> None:
        self.agent = agent
        self.name = participant_name(agent)
        # a turn waiting for tool approvals: its conversation, what the agent said so far,
        # the requests not yet answered, and the answers so far
        self._held: list[Message] = []
        self._said: list[Message] = []
        self._awaiting: dict[str, Content] = {}
        self._answers: list[Content] = []
        super().__init__(id or self.name)

    @handler
    async def take_turn(
        self,
        turn: AgentTurn,
        ctx: WorkflowContext[AgentReply, AgentResponse | AgentResponseUpdate],
    ) -> None:
        """Speak on the conversation and send the reply on."""
        await self._send(await self.run_turn(turn.conversation, ctx), ctx)

    @handler
    async def follow(
        self,
        prior: AgentReply,
        ctx: WorkflowContext[AgentReply, AgentResponse | AgentResponseUpdate],
    ) -> None:
        """Speak after another participant, on the conversation it answered."""
        await self._send(await self.run_turn(prior.conversation, ctx), ctx)

    @response_handler
    async def on_approval(
        self,
        original_request: Content,
        response: Content,
        ctx: WorkflowContext[AgentReply, AgentResponse | AgentResponseUpdate],
    ) -> None:
        """Collect a tool-approval answer; finish the turn once all are answered."""
        self._awaiting.pop(original_request.id or "", None)
        self._answers.append(response)
        if self._awaiting:
            return
        answers, self._answers = self._answers, []
        reply = await self._turn(self._held, self._said, answers, ctx)
        await self._send(reply, ctx)

    async def _send(
        self,
        reply: AgentReply | None,
        ctx: WorkflowContext[AgentReply, AgentResponse | AgentResponseUpdate],
    ) -> None:
        if reply is not None:
            await ctx.send_message(reply)

    def turn_tools(self) -> list[Any]:
        """Extra tools for the agent's next turn (none; handoff participants add some)."""
        return []

    def complete(self, reply: AgentReply) -> AgentReply:
        """The reply to send on (handoff participants add where they handed over)."""
        return reply

    async def run_turn(
        self,
        conversation: list[Message],
        ctx: WorkflowContext[AgentReply, AgentResponse | AgentResponseUpdate],
    ) -> AgentReply | None:
        """Run the agent on `conversation`, yielding its updates or response.

        Returns:
            The reply, or None when the turn waits for tool approvals (asked of the caller
            with `request_info`; the turn ends when they are all answered).
        """
        await ctx.add_event(WorkflowEvent(AGENT_TURN_EVENT, self.name))
        return await self._turn(conversation, [], [], ctx)

    async def _turn(
        self,
        conversation: list[Message],
        said: list[Message],
        answers: list[Content],
        ctx: WorkflowContext[AgentReply, AgentResponse | AgentResponseUpdate],
    ) -> AgentReply | None:
        tools = self.turn_tools()
        kwargs: dict[str, Any] = {"tools": tools} if tools else {}
        prompt = [*conversation, Message("user", answers)] if answers else list(conversation)
        if ctx.is_streaming:
            stream = self.agent.run(prompt, stream=True, **kwargs)
            async for update in stream:
                if update.author_name is None:
                    update.author_name = self.name
                await ctx.yield_output(update)
            response = await stream.get_final_response()
        else:
            response = await self.agent.run(prompt, **kwargs)
            await ctx.yield_output(response)
        new = [*said, *shareable_messages(response.messages, self.name)]
        requests = response.user_input_requests
        if requests:
            self._held, self._said = list(conversation), new
            self._awaiting = {request.id or "": request for request in requests}
            for request in requests:
                await ctx.request_info(request, Content)
            return None
        self._held, self._said = [], []
        return self.complete(AgentReply(self.name, new, [*conversation, *new]))

    async def on_checkpoint_save(self) -> dict[str, Any]:
        return {
            "held": list(self._held),
            "said": list(self._said),
            "awaiting": dict(self._awaiting),
            "answers": list(self._answers),
        }

    async def on_checkpoint_restore(self, state: dict[str, Any]) -> None:
        self._held = list(state.get("held", []))
        self._said = list(state.get("said", []))
        self._awaiting = dict(state.get("awaiting", {}))
        self._answers = list(state.get("answers", []))


class ConversationStart(Executor):
    """An executor that takes the run's input (text, a message or messages) and starts the
    orchestration with it. Subclasses implement `start`."""

    @handler
    async def from_text(self, text: str, ctx: WorkflowContext[AgentTurn, list[Message]]) -> None:
        """Start on a user message with this text."""
        await self.start(to_conversation(text), ctx)

    @handler
    async def from_message(
        self, message: Message, ctx: WorkflowContext[AgentTurn, list[Message]]
    ) -> None:
        """Start on one message."""
        await self.start([message], ctx)

    @handler
    async def from_messages(
        self, messages: list[Message], ctx: WorkflowContext[AgentTurn, list[Message]]
    ) -> None:
        """Start on a conversation."""
        await self.start(list(messages), ctx)

    async def start(
        self, conversation: list[Message], ctx: WorkflowContext[AgentTurn, list[Message]]
    ) -> None:
        """Begin the orchestration on `conversation`."""
        raise NotImplementedError
