"""One agent run, top to bottom, as a stream of updates.

context providers (before) -> prompt -> [model call -> tool calls]* -> context providers (after)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentry.agents._approvals import approval_requests, calls_needing_approval, resolve_approvals
from agentry.middleware._base import MiddlewareFunction, run_pipeline
from agentry.middleware._contexts import ChatContext
from agentry.sessions import AgentSession, ContextProvider, HistoryProvider, SessionContext
from agentry.tools import FunctionInvocationConfiguration, invoke_function_calls
from agentry.types import (
    AgentResponse,
    AgentResponseUpdate,
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    Message,
    add_usage_details,
)

if TYPE_CHECKING:
    from agentry.clients import SupportsChatGetResponse

__all__ = ["RunPlan", "run_agent"]


@dataclass
class RunPlan:
    """Everything one run needs, resolved from the agent and the call."""

    agent: Any
    client: SupportsChatGetResponse
    instructions: str | None
    tools: list[Any]
    options: ChatOptions
    providers: Sequence[ContextProvider]
    chat_middleware: Sequence[MiddlewareFunction]
    function_middleware: Sequence[MiddlewareFunction]
    config: FunctionInvocationConfiguration


async def run_agent(
    plan: RunPlan,
    input_messages: list[Message],
    session: AgentSession | None,
    kwargs: dict[str, Any],
    *,
    stream: bool,
) -> AsyncIterator[AgentResponseUpdate]:
    """The updates of one run; folded, they are the run's `AgentResponse`."""
    user_session = session is not None
    session = session or AgentSession()
    providers = [p for p in plan.providers if user_session or not isinstance(p, HistoryProvider)]
    context = SessionContext(
        session_id=session.session_id,
        service_session_id=session.service_session_id,
        input_messages=input_messages,
        options=plan.options,
    )
    for provider in providers:
        await provider.before_run(
            agent=plan.agent,
            session=session,
            context=context,
            state=session.state.setdefault(provider.source_id, {}),
        )

    turn = _Turn(plan, session, context, kwargs, stream)
    async for update in turn.run():
        yield update

    context.response = turn.response()
    for provider in reversed(providers):
        await provider.after_run(
            agent=plan.agent,
            session=session,
            context=context,
            state=session.state.setdefault(provider.source_id, {}),
        )


class _Turn:
    """The model and tool calls of one run, and the messages they produced."""

    def __init__(
        self,
        plan: RunPlan,
        session: AgentSession,
        context: SessionContext,
        kwargs: dict[str, Any],
        stream: bool,
    ) -> None:
        self.plan = plan
        self.session = session
        self.context = context
        self.kwargs = kwargs
        self.stream = stream
        self.agent_id: str | None = getattr(plan.agent, "id", None)
        self.author_name: str | None = getattr(plan.agent, "name", None)
        self.tools: list[Any] = [*plan.tools, *context.tools]
        self.new_messages: list[Message] = []
        self.usage: Any = None
        self.response_id: str | None = None
        self.finish_reason: str | None = None

    def response(self) -> AgentResponse:
        """The run's messages as a response, for context providers' `after_run`."""
        return AgentResponse(
            messages=self.new_messages,
            response_id=self.response_id,
            agent_id=self.agent_id,
            finish_reason=self.finish_reason,
            usage_details=self.usage,
            response_format=self.context.options.get("response_format"),
        )

    async def run(self) -> AsyncIterator[AgentResponseUpdate]:
        plan, context = self.plan, self.context
        outcome = resolve_approvals(context.input_messages, context.get_messages(), self.tools)
        context.input_messages = outcome.messages
        conversation = self._prompt()
        sent = 0  # with a service-kept conversation, only messages after this index are sent
        if outcome.resumed:
            if outcome.missing_calls:
                calls_message = Message(
                    "assistant", outcome.missing_calls, author_name=self.author_name
                )
                conversation.append(calls_message)
                self.new_messages.append(calls_message)
                yield self._update(calls_message)
            results = outcome.rejection_results()
            if outcome.to_run:
                batch = await self._invoke(outcome.to_run)
                results = [*batch.results, *results]
            results_message = Message("tool", results)
            conversation.append(results_message)
            self.new_messages.append(results_message)
            yield self._update(results_message)

        options: ChatOptions = dict(plan.options)  # type: ignore[assignment]
        if self.session.service_session_id and "conversation_id" not in options:
            options["conversation_id"] = self.session.service_session_id
        consecutive_errors = 0
        tools_allowed = plan.config.enabled
        for iteration in range(plan.config.max_iterations + 1):
            if iteration == plan.config.max_iterations:
                tools_allowed = False  # out of iterations: the model must answer now
            call_options: ChatOptions = dict(options)  # type: ignore[assignment]
            if self.tools:
                call_options["tools"] = list(self.tools)
                if not tools_allowed:
                    call_options["tool_choice"] = "none"
            response: ChatResponse | None = None
            async for item in self._call_model(conversation[sent:], call_options):
                if isinstance(item, ChatResponse):
                    response = item
                else:
                    yield item
            assert response is not None
            self._record(response)
            conversation.extend(response.messages)
            self.new_messages.extend(response.messages)
            if response.conversation_id:
                self.session.service_session_id = response.conversation_id
                options["conversation_id"] = response.conversation_id
                sent = len(conversation)
            calls = [c for m in response.messages for c in m.contents if c.type == "function_call"]
            if not calls or not tools_allowed:
                return
            held = calls_needing_approval(calls, self.tools)
            if held:
                requests = approval_requests(held)
                response.messages[-1].contents.extend(requests)
                yield self._update(Message("assistant", requests, author_name=self.author_name))
                return
            batch = await self._invoke(calls)
            results_message = Message("tool", batch.results)
            conversation.append(results_message)
            self.new_messages.append(results_message)
            yield self._update(results_message)
            if batch.terminate:
                return
            consecutive_errors = consecutive_errors + 1 if batch.all_failed else 0
            if consecutive_errors > plan.config.max_consecutive_errors_per_request:
                tools_allowed = False

    def _prompt(self) -> list[Message]:
        instructions = [
            text
            for text in (
                self.plan.instructions,
                self.context.options.get("instructions"),
                *self.context.instructions,
            )
            if text
        ]
        history = self.context.get_messages()
        if self.session.service_session_id:
            history = []  # the service keeps the conversation
        prompt = [Message("system", ["\n".join(instructions)])] if instructions else []
        return [*prompt, *history, *self.context.input_messages]

    async def _call_model(
        self, messages: list[Message], options: ChatOptions
    ) -> AsyncIterator[AgentResponseUpdate | ChatResponse]:
        """Agent updates as they come, then the whole chat response last."""
        client = self.plan.client
        middleware = self.plan.chat_middleware
        if middleware:
            chat_context = ChatContext(
                client=client, messages=messages, options=options, stream=self.stream
            )

            async def call(ctx: ChatContext) -> None:
                ctx.result = client.get_response(
                    ctx.messages, stream=ctx.stream, options=ctx.options
                )
                if not ctx.stream:
                    ctx.result = await ctx.result

            await run_pipeline(middleware, chat_context, call)
            result: Any = chat_context.result
        else:
            result = client.get_response(messages, stream=self.stream, options=options)
            if not self.stream:
                result = await result
        if isinstance(result, ChatResponse):
            for update in result.to_updates():
                yield self._agent_update(update)
            yield result
            return
        updates: list[ChatResponseUpdate] = []
        async for update in result:
            updates.append(update)
            yield self._agent_update(update)
        yield ChatResponse.from_updates(updates, response_format=options.get("response_format"))

    async def _invoke(self, calls: list[Content]) -> Any:
        return await invoke_function_calls(
            calls,
            self.tools,
            middleware=self.plan.function_middleware,
            config=self.plan.config,
            session=self.session,
            kwargs=self.kwargs,
        )

    def _record(self, response: ChatResponse) -> None:
        self.usage = add_usage_details(self.usage, response.usage_details)
        if response.response_id is not None:
            self.response_id = response.response_id
        if response.finish_reason is not None:
            self.finish_reason = response.finish_reason
        for message in response.messages:
            if message.author_name is None and message.role == "assistant":
                message.author_name = self.author_name

    def _agent_update(self, update: ChatResponseUpdate) -> AgentResponseUpdate:
        role = update.role
        return AgentResponseUpdate(
            contents=update.contents,
            role=role,
            author_name=update.author_name
            or (self.author_name if role in (None, "assistant") else None),
            agent_id=self.agent_id,
            message_id=update.message_id,
            response_id=update.response_id,
            finish_reason=update.finish_reason,
            created_at=update.created_at,
            additional_properties=update.additional_properties,
            raw_representation=update,
        )

    def _update(self, message: Message) -> AgentResponseUpdate:
        return AgentResponseUpdate(
            contents=list(message.contents),
            role=message.role,
            author_name=message.author_name,
            agent_id=self.agent_id,
            message_id=message.message_id,
        )


def has_history_provider(providers: Sequence[ContextProvider]) -> bool:
    """Whether one of `providers` keeps history."""
    return any(isinstance(p, HistoryProvider) for p in providers)
