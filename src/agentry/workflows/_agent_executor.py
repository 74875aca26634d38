"""`AgentExecutor`: an agent as a workflow node."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentry.types import AgentResponse, AgentResponseUpdate, Content, Message
from agentry.workflows._context import WorkflowContext
from agentry.workflows._executor import Executor
from agentry.workflows._handlers import handler, response_handler

if TYPE_CHECKING:
    from agentry.agents import SupportsAgentRun
    from agentry.sessions import AgentSession

__all__ = ["AgentExecutor", "AgentExecutorRequest", "AgentExecutorResponse"]


@dataclass
class AgentExecutorRequest:
    """Messages for an agent executor.

    Attributes:
        messages: The messages to add to the agent's input.
        should_respond: Run the agent now (False only adds the messages for a later run).
    """

    messages: list[Message]
    should_respond: bool = True


@dataclass
class AgentExecutorResponse:
    """What an agent executor sends on after its agent answered.

    Attributes:
        executor_id: The executor (so a fan-in can tell answers apart).
        agent_response: The agent's response.
        full_conversation: The conversation so far: the inputs and the answers.
    """

    executor_id: str
    agent_response: AgentResponse
    full_conversation: list[Message] = field(default_factory=list[Message])


class AgentExecutor(Executor):
    """Runs an agent on the messages it receives and sends its `AgentExecutorResponse` on.

    It accepts text, a `Message`, a list of messages, an `AgentExecutorRequest`, or another
    agent executor's `AgentExecutorResponse` (whose conversation becomes the input). When
    the caller streams, the agent streams and each `AgentResponseUpdate` is yielded as it
    comes; otherwise the whole `AgentResponse` is yielded. Tool calls that need approval
    become requests of the run; the run continues when they are all answered.

    Args:
        agent: The agent.
        id: The executor id (default: the agent's name, else its id).
        session: The agent session to use (default: a new one per executor).

    Example:
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> writer = ScriptedChatClient(["A haiku."]).as_agent(name="writer")
        >>> AgentExecutor(writer).id
        'writer'
    """

    def __init__(
        self,
        agent: SupportsAgentRun,
        *,
        id: str | None = None,
        session: AgentSession | None = None,
    ) -> None:
        self.agent = agent
        self.session = session or agent.create_session()
        self._pending: list[Message] = []
        self._conversation: list[Message] = []
        self._awaiting: dict[str, Content] = {}
        self._answers: list[Content] = []
        super().__init__(id or agent.name or agent.id)

    # region handlers

    @handler
    async def from_request(
        self,
        request: AgentExecutorRequest,
        ctx: WorkflowContext[AgentExecutorResponse, AgentResponse | AgentResponseUpdate],
    ) -> None:
        """Add the request's messages; run the agent when it should respond."""
        self._pending.extend(request.messages)
        if request.should_respond:
            await self._run_agent(ctx)

    @handler
    async def from_response(
        self,
        prior: AgentExecutorResponse,
        ctx: WorkflowContext[AgentExecutorResponse, AgentResponse | AgentResponseUpdate],
    ) -> None:
        """Continue the conversation another agent executor answered.

        When the conversation continues one this agent already took part in (a loop between
        agents), only the messages it has not seen yet are new input; its session holds
        the rest.
        """
        conversation = prior.full_conversation or prior.agent_response.messages
        known = len(self._conversation)
        if known and conversation[:known] == self._conversation:
            conversation = conversation[known:]
        self._pending.extend(conversation)
        await self._run_agent(ctx)

    @handler
    async def from_text(
        self,
        text: str,
        ctx: WorkflowContext[AgentExecutorResponse, AgentResponse | AgentResponseUpdate],
    ) -> None:
        """Run the agent on a user message with this text."""
        self._pending.append(Message("user", [text]))
        await self._run_agent(ctx)

    @handler
    async def from_message(
        self,
        message: Message,
        ctx: WorkflowContext[AgentExecutorResponse, AgentResponse | AgentResponseUpdate],
    ) -> None:
        """Run the agent on one message."""
        self._pending.append(message)
        await self._run_agent(ctx)

    @handler
    async def from_messages(
        self,
        messages: list[Message],
        ctx: WorkflowContext[AgentExecutorResponse, AgentResponse | AgentResponseUpdate],
    ) -> None:
        """Run the agent on a list of messages."""
        self._pending.extend(messages)
        await self._run_agent(ctx)

    @response_handler
    async def on_approval(
        self,
        original_request: Content,
        response: Content,
        ctx: WorkflowContext[AgentExecutorResponse, AgentResponse | AgentResponseUpdate],
    ) -> None:
        """Collect a tool-approval answer; run the agent again once all are answered."""
        self._awaiting.pop(original_request.id or "", None)
        self._answers.append(response)
        if not self._awaiting:
            self._pending.append(Message("user", self._answers))
            self._answers = []
            await self._run_agent(ctx)

    # endregion

    async def _run_agent(
        self, ctx: WorkflowContext[AgentExecutorResponse, AgentResponse | AgentResponseUpdate]
    ) -> None:
        messages, self._pending = self._pending, []
        if ctx.is_streaming:
            stream = self.agent.run(messages, stream=True, session=self.session)
            async for update in stream:
                await ctx.yield_output(update)
            response = await stream.get_final_response()
        else:
            response = await self.agent.run(messages, session=self.session)
            await ctx.yield_output(response)
        self._conversation.extend(messages)
        self._conversation.extend(response.messages)
        requests = response.user_input_requests
        if requests:
            for request in requests:
                self._awaiting[request.id or ""] = request
                await ctx.request_info(request, Content)
            return
        await ctx.send_message(AgentExecutorResponse(self.id, response, list(self._conversation)))

    async def on_checkpoint_save(self) -> dict[str, Any]:
        return {
            "pending": list(self._pending),
            "conversation": list(self._conversation),
            "awaiting": dict(self._awaiting),
            "answers": list(self._answers),
            "session": self.session,
        }

    async def on_checkpoint_restore(self, state: dict[str, Any]) -> None:
        self._pending = list(state.get("pending", []))
        self._conversation = list(state.get("conversation", []))
        self._awaiting = dict(state.get("awaiting", {}))
        self._answers = list(state.get("answers", []))
        session = state.get("session")
        if session is not None:
            self.session = session
