"""`WorkflowAgent`: a workflow behind the agent interface (`workflow.as_agent()`)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from agentry.agents import BaseAgent
from agentry.types import (
    AgentResponse,
    AgentResponseUpdate,
    Content,
    Message,
)
from agentry.workflows._checkpoint import WorkflowCheckpoint
from agentry.workflows._events import WorkflowEvent
from agentry.workflows._streamed_replies import StreamedReplies

if TYPE_CHECKING:
    from agentry.middleware import MiddlewareTypes
    from agentry.sessions import AgentSession
    from agentry.workflows._workflow import Workflow

__all__ = ["REQUEST_INFO_FUNCTION", "WorkflowAgent"]

REQUEST_INFO_FUNCTION = "request_info"
"""The function name under which a workflow's requests appear as function calls."""

_SESSION_STATE_KEY = "agentry.workflow_run"
"""Where a session keeps its conversation's workflow run (a checkpoint, as JSON)."""


class WorkflowAgent(BaseAgent):
    """A workflow used as an agent. Create it with `workflow.as_agent()`.

    The input messages are the workflow's input (its start executor must accept
    `list[Message]`). The workflow's Workflow Output becomes the agent's response:
    `AgentResponseUpdate`s pass through as they stream, `AgentResponse`s and messages
    become their updates, other values become text. A tool-approval or authorization
    request inside the workflow appears as its `function_approval_request` or
    `authorization_request` content; any other request appears as a `function_call` named
    `request_info` whose call id is the request id. Answer them in the next run's messages
    (an approval or authorization response, or a function result with that call id) to
    continue the workflow.

    Each session is its own conversation. A new run with `session=` gets the session's
    conversation so far followed by the new messages as its input; the session keeps the
    conversation and the workflow's run (pending requests, executor state) in
    `session.state`, as JSON, so it survives serialising the session. A new session starts
    from the executors' initial state. Runs of one `WorkflowAgent` take turns, as they
    share the workflow. Runs without a session get only their own messages and continue
    whatever run the workflow holds.

    Example:
        >>> from agentry.workflows import WorkflowBuilder, WorkflowContext, executor
        >>> from agentry.types import Message
        >>> @executor
        ... async def echo(messages: list[Message], ctx: WorkflowContext[None, str]) -> None:
        ...     await ctx.yield_output(f"echo: {messages[-1].text}")
        >>> agent = WorkflowBuilder(start_executor=echo).build().as_agent(name="echo")
    """

    def __init__(
        self,
        workflow: Workflow,
        *,
        id: str | None = None,
        name: str | None = None,
        description: str | None = None,
        middleware: Sequence[MiddlewareTypes] | None = None,
    ) -> None:
        start = workflow.get_start_executor()
        if not start.can_handle([Message("user", ["probe"])]):
            raise TypeError(
                f"workflow {workflow.name!r} cannot run as an agent: its start executor "
                f"{start.id!r} does not accept list[Message]; add a handler taking "
                "list[Message]"
            )
        super().__init__(
            id=id,
            name=name or workflow.name,
            description=description or workflow.description,
            middleware=middleware,
        )
        self.workflow = workflow
        self._approvals: dict[str, str] = {}
        self._turns = asyncio.Lock()
        self._initial_state: WorkflowCheckpoint | None = None

    def _run_updates(
        self, messages: list[Message], session: AgentSession | None, *, stream: bool
    ) -> AsyncIterator[AgentResponseUpdate]:
        """Run the workflow on `messages` (or continue it with answers in `messages`)."""
        return self._updates(messages, stream, session)

    async def _updates(
        self, messages: list[Message], stream: bool, session: AgentSession | None
    ) -> AsyncIterator[AgentResponseUpdate]:
        async with self._turns:
            history = await self._resume_conversation(session) if session is not None else []
            produced: list[AgentResponseUpdate] = []
            try:
                updates = self._workflow_updates(messages, stream, history)
                async with contextlib.aclosing(updates) as run:
                    async for update in run:
                        produced.append(update)
                        yield update
            finally:
                if session is not None:
                    said = AgentResponse.from_updates(produced).messages
                    await self._keep_conversation(session, [*history, *_chat(messages + said)])

    async def _resume_conversation(self, session: AgentSession) -> list[Message]:
        """Make `session`'s workflow run (or a fresh start) the workflow's current one;
        the session's conversation so far."""
        if self._initial_state is None:
            self._initial_state = await self.workflow.save_run()
        saved = session.state.get(_SESSION_STATE_KEY)
        if saved is None:
            await self.workflow.restore_run(self._initial_state)
            self._approvals = {}
            return []
        await self.workflow.restore_run(WorkflowCheckpoint.from_json(saved["run"]))
        self._approvals = dict(saved["approvals"])
        return [Message.from_dict(m) for m in json.loads(saved["history"])]

    async def _keep_conversation(self, session: AgentSession, history: list[Message]) -> None:
        checkpoint = await self.workflow.save_run()
        session.state[_SESSION_STATE_KEY] = {
            "run": checkpoint.to_json(),
            "approvals": dict(self._approvals),
            # JSON text: session state reads dicts with a "type" key as typed values
            "history": json.dumps([m.to_dict() for m in history]),
        }

    async def _workflow_updates(
        self, messages: list[Message], stream: bool, history: list[Message]
    ) -> AsyncGenerator[AgentResponseUpdate, None]:
        responses = self._answers_in(messages)
        conversation = [*history, *messages]
        if stream:
            events: object = (
                self.workflow.run(responses=responses, stream=True)
                if responses
                else self.workflow.run(conversation, stream=True)
            )
        else:
            events = await (
                self.workflow.run(responses=responses)
                if responses
                else self.workflow.run(conversation)
            )
        streamed = StreamedReplies()
        async with contextlib.aclosing(_aiter(events)) as workflow_events:
            async for event in workflow_events:
                if event.type == "output":
                    for update in self._output_updates(event):
                        if not streamed.already_shown(update):
                            yield update
                elif event.type == "request_info":
                    yield self._request_update(event)
                elif not stream:
                    continue
                elif event.type == "intermediate" and isinstance(event.data, AgentResponseUpdate):
                    yield streamed.shown(event.data, event.executor_id or "")
                elif event.type == "executor_invoked":
                    streamed.executor_invoked(event.executor_id or "")

    def _answers_in(self, messages: list[Message]) -> dict[str, Any]:
        """Answers to the workflow's pending requests found in the input messages."""
        pending = {event.request_id for event in self.workflow.pending_requests}
        answers: dict[str, object] = {}
        for message in messages:
            for content in message.contents:
                if content.type in ("function_approval_response", "authorization_response"):
                    request_id = self._approvals.get(content.id or "")
                    if request_id is not None and request_id in pending:
                        answers[request_id] = content
                        self._approvals.pop(content.id or "", None)
                elif content.type == "function_result" and content.call_id in pending:
                    answers[content.call_id or ""] = content.result
        return answers

    def _output_updates(self, event: WorkflowEvent[Any]) -> list[AgentResponseUpdate]:
        data = event.data
        if isinstance(data, AgentResponseUpdate):
            return [data]
        if isinstance(data, AgentResponse):
            return data.to_updates()
        if isinstance(data, Message):
            data = [data]
        if isinstance(data, list) and all(
            isinstance(m, Message) for m in cast("list[object]", data)
        ):
            return [
                AgentResponseUpdate(
                    contents=m.contents,
                    role=m.role,
                    author_name=m.author_name or event.executor_id,
                    message_id=m.message_id or uuid.uuid4().hex,
                )
                for m in cast("list[Message]", data)
            ]
        text = data if isinstance(data, str) else _as_text(data)
        return [
            AgentResponseUpdate(
                contents=[text],
                role="assistant",
                author_name=event.executor_id,
                message_id=uuid.uuid4().hex,
            )
        ]

    def _request_update(self, event: WorkflowEvent[Any]) -> AgentResponseUpdate:
        data = event.data
        request_id = event.request_id or ""
        if isinstance(data, Content) and data.user_input_request:
            self._approvals[data.id or ""] = request_id
            content = data
        else:
            content = Content.from_function_call(
                call_id=request_id,
                name=REQUEST_INFO_FUNCTION,
                arguments={"request_id": request_id, "data": _jsonable(data)},
            )
        return AgentResponseUpdate(
            contents=[content], role="assistant", author_name=event.source_executor_id
        )


_PROTOCOL_CONTENT = frozenset(
    {
        "function_call",
        "function_result",
        "function_approval_request",
        "function_approval_response",
        "authorization_request",
        "authorization_response",
    }
)


def _chat(messages: list[Message]) -> list[Message]:
    """The conversational part of `messages`: without requests to and answers from the
    user, which belong to the workflow's run, not to the conversation."""
    kept: list[Message] = []
    for message in messages:
        contents = [c for c in message.contents if c.type not in _PROTOCOL_CONTENT]
        if contents:
            kept.append(
                Message(
                    message.role,
                    contents,
                    author_name=message.author_name,
                    message_id=message.message_id,
                    additional_properties=message.additional_properties,
                )
            )
    return kept


async def _aiter(events: Any) -> AsyncGenerator[WorkflowEvent[Any], None]:
    if hasattr(events, "__aiter__"):
        try:
            async for event in events:
                yield event
        finally:
            # a consumer that stops early ends the workflow's run too
            await events.aclose()
    else:
        for event in events:
            yield event


def _jsonable(data: Any) -> Any:
    if hasattr(data, "model_dump"):
        return data.model_dump(mode="json")
    if dataclasses.is_dataclass(data) and not isinstance(data, type):
        data = dataclasses.asdict(data)
    try:
        json.dumps(data)
    except (TypeError, ValueError):
        return str(data)
    return data


def _as_text(data: Any) -> str:
    value = _jsonable(data)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
