"""One agent run, top to bottom, as a stream of updates.

context providers (before) -> prompt -> [model call -> tool calls]* -> context providers (after)

A final answer is checked against the run's response format (the model is asked again
while output retries last), and every model call and tool call against the usage limits.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentry.agents._approvals import (
    ApprovalOutcome,
    ApprovalRule,
    approval_requests,
    approval_rules,
    calls_needing_approval,
    resolve_approvals,
)
from agentry.agents._authorizations import (
    AuthorizationOutcome,
    hold_for_authorization,
    resolve_authorizations,
)
from agentry.agents._caller_tools import calls_for_the_caller
from agentry.agents._output_check import OutputCheck
from agentry.agents._usage_guard import UsageCounter
from agentry.clients import BaseChatClient, checked_responder, checked_streamer, stream_break
from agentry.errors import ToolLoopLimitError
from agentry.middleware import AgentContext, ChatContext, MiddlewareFunction, run_pipeline
from agentry.sessions import AgentSession, ContextProvider, HistoryProvider, SessionContext
from agentry.tools import (
    FunctionInvocationConfiguration,
    ToolCallBatch,
    check_unique_tool_names,
    expand_tool_sources,
    grant_credentials,
    has_tool_sources,
    invoke_function_calls,
    normalize_tools,
)
from agentry.types import (
    AgentResponse,
    AgentResponseUpdate,
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    Message,
    UsageLimits,
    add_usage_details,
    check_chat_options,
)

if TYPE_CHECKING:
    from agentry.protocols import SupportsChatGetResponse

__all__ = ["RunPlan", "has_history_provider"]


@dataclass(slots=True)
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
    output_retries: int = 1
    usage_limits: UsageLimits | None = None
    session_usage_limits: UsageLimits | None = None
    sessionless_providers: Sequence[ContextProvider] | None = None
    """The providers a run without a session of the caller's consults (None: those of
    `providers` that keep no history)."""

    def updates(self, context: AgentContext) -> AsyncIterator[AgentResponseUpdate]:
        """The run's updates, as agent middleware's context gives it (streaming)."""
        return self._start(context, stream=True).updates()

    def respond(self, context: AgentContext) -> Awaitable[AgentResponse]:
        """The run's response, as agent middleware's context gives it (not streaming)."""
        return self._start(context, stream=False).respond()

    def respond_directly(
        self,
        messages: list[Message],
        session: AgentSession | None,
        function_invocation_kwargs: dict[str, object],
    ) -> Awaitable[AgentResponse]:
        """The run's response when no agent middleware needs a context to see it."""
        return _Run(self, messages, session, function_invocation_kwargs, False).respond()

    def _start(self, context: AgentContext, *, stream: bool) -> _Run:
        if context.options is not None:
            self.options = context.options
        return _Run(
            self, context.messages, context.session, context.function_invocation_kwargs, stream
        )


class _Run(UsageCounter):
    """One run: context providers around the model and tool calls, and what they produced;
    with usage limits, it counts its usage against them.

    A streaming run iterates `updates()`; a plain run awaits `respond()`. Tests hold the
    two to the same response.
    """

    # Slots: reading an attribute is quickest from a slot (one set per run, read often).
    __slots__ = (
        "agent_id",
        "author_name",
        "compacting",
        "context",
        "counting",
        "created_at",
        "finish_reason",
        "function_invocation_kwargs",
        "input_messages",
        "new_messages",
        "output_check",
        "plan",
        "response_id",
        "session",
        "stream",
        "tools",
        "usage",
        "user_session",
    )

    def __init__(
        self,
        plan: RunPlan,
        input_messages: list[Message],
        session: AgentSession | None,
        function_invocation_kwargs: Mapping[str, object],
        stream: bool,
    ) -> None:
        self.plan = plan
        self.user_session = session is not None
        self.session = session or AgentSession()
        self.input_messages = input_messages
        # what context providers see and shape; a run without providers makes none
        self.context: SessionContext | None = None
        self.function_invocation_kwargs = function_invocation_kwargs
        self.stream = stream
        self.agent_id: str | None = getattr(plan.agent, "id", None)
        self.author_name: str | None = getattr(plan.agent, "name", None)
        self.tools: list[Any] = plan.tools
        self.new_messages: list[Message] = []
        self.compacting: Sequence[HistoryProvider] = ()
        self.usage: Any = None
        self.response_id: str | None = None
        self.created_at: str | None = None
        self.finish_reason: str | None = None
        self.output_check: OutputCheck | None = None
        self.counting = plan.usage_limits is not None or plan.session_usage_limits is not None
        if self.counting:
            self.start_counting(plan.usage_limits, plan.session_usage_limits, self.session.state)

    @property
    def options(self) -> ChatOptions:
        """The run's options, as context providers left them if any ran."""
        return self.plan.options if self.context is None else self.context.options

    def response(self) -> AgentResponse:
        """The run's messages as a response, for context providers' `after_run`."""
        return AgentResponse(
            messages=[m for m in self.new_messages if m.contents],
            response_id=self.response_id,
            created_at=self.created_at,
            agent_id=self.agent_id,
            finish_reason=self.finish_reason,
            usage_details=self.usage,
            value=self.output_check.value if self.output_check is not None else None,
            response_format=self.options.get("response_format"),
        )

    async def updates(self) -> AsyncIterator[AgentResponseUpdate]:
        """Carry out the run, yielding its updates (when streaming)."""
        providers = self._consulted_providers()
        if providers or has_tool_sources(self.tools):
            await self._before_turns(providers)
        steps = self._turns()
        try:
            step = next(steps)
            while True:
                if isinstance(step, AgentResponseUpdate):
                    yield step
                    step = steps.send(None)
                elif isinstance(step, _ModelStream):
                    # streamed here, not in a generator of its own: one step less per chunk
                    from_chat_update = AgentResponseUpdate.from_chat_update
                    agent_id, author = self.agent_id, self.author_name
                    chunks: list[ChatResponseUpdate] = []
                    try:
                        answer, model_updates = await self._open_model_stream(step)
                        try:
                            async for chunk in model_updates:
                                chunks.append(chunk)
                                update = from_chat_update(
                                    chunk, agent_id=agent_id, default_author=author
                                )
                                if step.answer_only:  # nothing will run its tool calls
                                    _drop_calls(update)
                                yield update
                        finally:  # a caller that stops early must not leave it open
                            await _close(model_updates)
                        if answer is None:
                            response_format = step.options.get("response_format")
                            answer = ChatResponse.from_updates(
                                chunks, response_format=response_format
                            )
                    except BaseException as error:  # the turns see it where they waited
                        step = steps.throw(stream_break(error, chunks))
                    else:
                        step = steps.send(answer)
                else:
                    step = await _next_step(steps, step)
        except StopIteration:
            pass
        finally:
            steps.close()  # a caller that stops early leaves no turn suspended
        if providers:
            await self._after_turns(providers)

    async def respond(self) -> AgentResponse:
        """Carry out the run and return its response (`updates()` without the updates)."""
        providers = self._consulted_providers()
        if providers or has_tool_sources(self.tools):
            await self._before_turns(providers)
        # a plain run's turns yield only what is to be awaited
        steps: Generator[Awaitable[object], Any, None] = self._turns()  # pyright: ignore[reportAssignmentType]
        try:
            step = next(steps)
            while True:
                try:
                    result = await step
                except BaseException as error:  # the turns see it where they waited
                    step = steps.throw(error)
                else:
                    step = steps.send(result)
        except StopIteration:
            pass
        if not providers:
            return self.response()
        context = await self._after_turns(providers)
        return context.response or self.response()

    def _consulted_providers(self) -> Sequence[ContextProvider]:
        """The context providers of this run: history is kept only in a session of the
        caller's."""
        plan = self.plan
        if self.user_session:
            return plan.providers
        providers = plan.sessionless_providers
        if providers is None:
            providers = [p for p in plan.providers if not isinstance(p, HistoryProvider)]
        return providers

    async def _before_turns(self, providers: Sequence[ContextProvider]) -> None:
        """Let the context providers shape the run, and gather its tools (loading those of
        tool sources)."""
        plan, session = self.plan, self.session
        offered = self.tools
        if providers:
            context = self.context = SessionContext(
                session=session,
                service_session_id=session.service_session_id,
                input_messages=self.input_messages,
                options=plan.options,
            )
            for provider in providers:
                state = session.state.setdefault(provider.source_id, {})
                await provider.before_run(
                    agent=plan.agent, session=session, context=context, state=state
                )
            self.input_messages = context.input_messages
            self.compacting = [
                p for p in providers if isinstance(p, HistoryProvider) and p.compaction is not None
            ]
            if context.tools:
                offered = [*offered, *normalize_tools(context.tools)]
        expanded = await expand_tool_sources(offered)
        if expanded is not plan.tools:  # tools came from providers or tool sources
            check_unique_tool_names(expanded)
        self.tools = expanded

    async def _after_turns(self, providers: Sequence[ContextProvider]) -> SessionContext:
        """Let the context providers see the run's response; their context."""
        plan, context, session = self.plan, self.context, self.session
        assert context is not None  # made by `_before_turns`
        context.response = self.response()
        for provider in reversed(providers):
            state = session.state.setdefault(provider.source_id, {})
            await provider.after_run(
                agent=plan.agent, session=session, context=context, state=state
            )
        return context

    def _turns(self) -> Generator[_Step, Any, None]:  # Any: sent values need no cast() call
        """The model and tool calls of the run, as steps for `respond()` or `updates()` to
        carry out: each awaitable it yields is awaited and its result sent back, each
        update (streaming only) is passed on, and a `_ModelStream` is streamed."""
        plan = self.plan
        rules = approval_rules(plan.function_middleware) if plan.function_middleware else ()
        answers = self._take_answers(rules) if _answers_requests(self.input_messages) else None
        conversation = self._prompt()
        sent = 0  # with a service-kept conversation, only messages after this index are sent
        if answers is not None and (answers[0].resumed or answers[1].resumed):
            granted, outcome = answers
            missing_calls = [*outcome.missing_calls, *granted.missing_calls]
            if missing_calls:
                calls_message = Message("assistant", missing_calls, author_name=self.author_name)
                conversation.append(calls_message)
                self.new_messages.append(calls_message)
                if self.stream:
                    yield self._update(calls_message)
            results = [*outcome.rejection_results(), *granted.declined_results()]
            rerun = {c.call_id for c in granted.to_run}
            to_run = [*(c for c in outcome.to_run if c.call_id not in rerun), *granted.to_run]
            if to_run:
                with grant_credentials(granted.credentials):
                    batch: ToolCallBatch = yield self._invoke(to_run)
                results = [*batch.results, *results]
            added, paused = self._add_results(conversation, to_run, results)
            if self.stream:
                for message in added:
                    yield self._update(message)
            if paused:
                return

        # Instructions went into the system message; clients get them only there.
        options = plan.options.copy()
        options.pop("instructions", None)
        if isinstance(plan.client, BaseChatClient):  # its model calls skip the check
            check_chat_options(options, options_type=plan.client.options_type)
        if self.session.service_session_id and "conversation_id" not in options:
            options["conversation_id"] = self.session.service_session_id
        response_format = options.get("response_format")
        if response_format is not None:
            self.output_check = OutputCheck(response_format, plan.output_retries)
        # a plain model call without chat middleware (the options are checked above)
        respond = None if self.stream or plan.chat_middleware else checked_responder(plan.client)
        consecutive_errors = 0
        tools_allowed = plan.config.enabled
        limit: str | None = None  # the limit reached: the model must answer without tools
        rounds = 0  # rounds of tool calls so far
        max_iterations = plan.config.max_iterations
        while True:
            if rounds >= max_iterations and limit is None:
                limit = "max_iterations"
            call_options = options.copy()
            if limit is not None:
                call_options.pop("tools", None)
                call_options["tool_choice"] = "none"
            elif self.tools:
                call_options["tools"] = list(self.tools)
                if not tools_allowed:
                    call_options["tool_choice"] = "none"
            if self.counting and self.checks_requests:
                self.before_request()
            to_send = conversation[sent:]
            if self.compacting and not (sent or self.session.service_session_id):
                to_send = yield self._compact(to_send)
            step: _Step
            if self.stream:
                step = _ModelStream(to_send, call_options, answer_only=limit is not None)
            elif respond is not None:
                step = respond(to_send, call_options)
            else:
                step = _call_through(plan.chat_middleware, plan.client, to_send, call_options)
            response: ChatResponse = yield step
            if self.counting:
                self.after_response(response.usage_details)
            if limit is not None:
                self._answer_without_calls(response, limit)
            calls = self._record(response)
            conversation.extend(response.messages)
            self.new_messages.extend(response.messages)
            if response.conversation_id:
                self.session.service_session_id = response.conversation_id
                options["conversation_id"] = response.conversation_id
                sent = len(conversation)
            if not calls or not tools_allowed:
                retry = self.output_check.feedback(response) if self.output_check else None
                if retry is None:
                    return
                conversation.append(retry)
                self.new_messages.append(retry)
                if self.stream:
                    yield self._update(retry)
                continue
            held = calls_needing_approval(calls, self.tools, rules)
            if held:
                requests = approval_requests(held)
                response.messages[-1].contents.extend(requests)
                if self.stream:
                    yield self._update(Message("assistant", requests, author_name=self.author_name))
                return
            for_the_caller = calls_for_the_caller(calls, self.tools)
            if for_the_caller:  # the run ends with them unanswered, once its own are run
                calls = [c for c in calls if all(c is not mine for mine in for_the_caller)]
                if not calls:
                    return
            batch = yield self._invoke(calls)
            rounds += 1
            added, paused = self._add_results(conversation, calls, batch.results)
            if self.stream:
                for message in added:
                    yield self._update(message)
            if paused or batch.terminate or for_the_caller:
                return
            consecutive_errors = consecutive_errors + 1 if batch.all_failed else 0
            if consecutive_errors > plan.config.max_consecutive_errors_per_request:
                limit = "max_consecutive_errors_per_request"

    def _take_answers(
        self, rules: Sequence[ApprovalRule]
    ) -> tuple[AuthorizationOutcome, ApprovalOutcome]:
        """Take the input's answers to earlier approval and authorization requests out of
        it, and what they mean."""
        context = self.context
        history = _no_history if context is None else context.get_messages
        granted = resolve_authorizations(self.input_messages, history)
        outcome = resolve_approvals(granted.messages, history, self.tools, rules)
        self.input_messages = outcome.messages
        if context is not None:  # the providers' after_run sees the input without them
            context.input_messages = outcome.messages
        return granted, outcome

    async def _compact(self, messages: list[Message]) -> list[Message]:
        """The messages the next model call sends, shaped by the history providers'
        compaction (not when the service keeps the conversation)."""
        for provider in self.compacting:
            state = self.session.state.setdefault(provider.source_id, {})
            messages = await provider.compact(messages, state=state)
        return messages

    def _answer_without_calls(self, response: ChatResponse, limit: str) -> None:
        """Keep the answer of a model asked to answer without tools, less any tool calls
        it made anyway (nothing will run them); raise if it made nothing else."""
        if not any(c.type == "function_call" for m in response.messages for c in m.contents):
            return
        if not response.text:
            names = sorted({c.name or "?" for m in response.messages for c in m.contents if c.name})
            raise ToolLoopLimitError(_limit_problem(self.plan.config, limit, names))
        for message in response.messages:
            message.contents = [c for c in message.contents if c.type != "function_call"]
        response.messages = [m for m in response.messages if m.contents]

    def _add_results(
        self, conversation: list[Message], calls: list[Content], results: list[Content]
    ) -> tuple[list[Message], bool]:
        """Add a batch's results to the run; the messages added, and whether the run pauses
        because a tool asked for authorization (its request ends the run in an assistant
        message of its own, which models are not shown)."""
        kept, asking = hold_for_authorization(calls, results)
        added: list[Message] = []
        if kept:
            results_message = Message("tool", kept)
            conversation.append(results_message)
            added.append(results_message)
        if asking:
            # an id of its own keeps it apart from the calls' message when streamed
            added.append(
                Message(
                    "assistant", asking, author_name=self.author_name, message_id=uuid.uuid4().hex
                )
            )
        self.new_messages.extend(added)
        return added, bool(asking)

    def _prompt(self) -> list[Message]:
        context = self.context
        instructions = self.plan.instructions
        more = self.options.get("instructions")
        added = context.instructions if context is not None else ()
        if more or added:
            parts = (instructions, more, *added)
            instructions = "\n".join(text for text in parts if text)
        history: list[Message] = []
        if context is not None and context.context_messages and not self.session.service_session_id:
            history = context.get_messages()  # unless the service keeps the conversation
        prompt = [Message("system", [instructions])] if instructions else []
        return [*prompt, *history, *self.input_messages]

    async def _open_model_stream(
        self, step: _ModelStream
    ) -> tuple[ChatResponse | None, AsyncIterable[ChatResponseUpdate]]:
        """Start one streamed model call: its updates, and the response when chat
        middleware answered in place of the model (None: the updates fold into it)."""
        client = self.plan.client
        middleware = self.plan.chat_middleware
        if not middleware:  # the options are checked (see `_turns`)
            return None, checked_streamer(client)(step.messages, step.options)
        chat_context = ChatContext(
            client=client, messages=step.messages, options=step.options, stream=True
        )

        async def call(ctx: ChatContext) -> None:
            ctx.result = client.get_response(ctx.messages, stream=True, options=ctx.options)

        await run_pipeline(middleware, chat_context, call)
        result: Any = chat_context.result
        if isinstance(result, ChatResponse):
            answer: ChatResponse = result  # pyright: ignore[reportUnknownVariableType]
            return answer, _replay(answer)
        return None, result

    def _invoke(self, calls: list[Content]) -> Awaitable[ToolCallBatch]:
        if self.counting:
            self.before_tool_calls(len(calls))
        return invoke_function_calls(
            calls,
            self.tools,
            middleware=self.plan.function_middleware,
            config=self.plan.config,
            session=self.session,
            function_invocation_kwargs=self.function_invocation_kwargs,
        )

    def _record(self, response: ChatResponse) -> list[Content]:
        """Keep what the run's response takes from a model response, and name the author
        of its assistant messages; the tool calls it makes."""
        if response.usage_details is not None:
            self.usage = add_usage_details(self.usage, response.usage_details)
        if response.response_id is not None:
            self.response_id = response.response_id
        if response.created_at is not None:
            self.created_at = response.created_at
        if response.finish_reason is not None:
            self.finish_reason = response.finish_reason
        calls: list[Content] = []
        for message in response.messages:
            if message.author_name is None and message.role == "assistant":
                message.author_name = self.author_name
            for content in message.contents:
                if content.type == "function_call":
                    calls.append(content)
        return calls

    def _update(self, message: Message) -> AgentResponseUpdate:
        return AgentResponseUpdate(
            contents=list(message.contents),
            role=message.role,
            author_name=message.author_name,
            agent_id=self.agent_id,
            message_id=message.message_id,
        )


async def _next_step(steps: Generator[_Step, object, None], step: Awaitable[object]) -> _Step:
    """Await `step`, send its result (or throw its failure) into `steps`: the next step."""
    try:
        result = await step
    except BaseException as error:
        return steps.throw(error)
    return steps.send(result)


class _ModelStream:
    """A step of a streaming run: stream the model's answer to `messages`."""

    __slots__ = ("answer_only", "messages", "options")

    def __init__(self, messages: list[Message], options: ChatOptions, *, answer_only: bool) -> None:
        self.messages = messages
        self.options = options
        self.answer_only = answer_only


_Step = Awaitable[object] | AgentResponseUpdate | _ModelStream
"""What the turns of a run yield: see `_Run._turns`."""

_ANSWER_TYPES = frozenset(("function_approval_response", "authorization_response"))


def _answers_requests(messages: list[Message]) -> bool:
    """Whether `messages` answer approval or authorization requests (plain loops: this
    runs at the start of every run)."""
    for message in messages:
        for content in message.contents:
            if content.type in _ANSWER_TYPES:
                return True
    return False


async def _call_through(
    middleware: Sequence[MiddlewareFunction],
    client: SupportsChatGetResponse,
    messages: list[Message],
    options: ChatOptions,
) -> ChatResponse:
    """A plain model call through chat middleware."""
    chat_context = ChatContext(client=client, messages=messages, options=options)

    async def call(ctx: ChatContext) -> None:
        ctx.result = await client.get_response(ctx.messages, options=ctx.options)

    await run_pipeline(middleware, chat_context, call)
    return chat_context.result


async def _replay(response: ChatResponse) -> AsyncIterator[ChatResponseUpdate]:
    """The updates of a response chat middleware gave in place of the model's stream."""
    for update in response.to_updates():
        yield update


async def _close(updates: AsyncIterable[ChatResponseUpdate]) -> None:
    close = getattr(updates, "aclose", None)
    if close is not None:
        await close()


def _drop_calls(update: AgentResponseUpdate) -> None:
    """Leave the tool calls out of `update` (its contents list is the chat update's)."""
    if any(c.type == "function_call" for c in update.contents):
        update.contents = [c for c in update.contents if c.type != "function_call"]


def _limit_problem(config: FunctionInvocationConfiguration, limit: str, names: list[str]) -> str:
    called = f"still called {', '.join(repr(n) for n in names)}"
    if limit == "max_iterations":
        return (
            f"the model {called} after max_iterations={config.max_iterations} rounds of tool "
            "calls, when it was asked to answer without tools, and gave no answer; if the "
            "task needs more rounds, raise it: Agent(..., function_invocation_configuration="
            "FunctionInvocationConfiguration(max_iterations=...))"
        )
    return (
        f"the model {called} after more than max_consecutive_errors_per_request="
        f"{config.max_consecutive_errors_per_request} turns in a row whose tool calls all "
        "failed, when it was asked to answer without tools, and gave no answer; fix what "
        "makes the tools fail (the tool results say), or raise the limit: "
        "FunctionInvocationConfiguration(max_consecutive_errors_per_request=...)"
    )


def _no_history() -> list[Message]:
    """The conversation before the input of a run without context providers: none."""
    return []


def has_history_provider(providers: Sequence[ContextProvider]) -> bool:
    """Whether one of `providers` keeps history."""
    return any(isinstance(p, HistoryProvider) for p in providers)
