"""`A2AAgent`: an agentry agent that is a remote A2A agent."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from types import TracebackType
from typing import Any, cast

import httpx
from a2a.client import A2ACardResolver, Client, ClientConfig, create_client
from a2a.types import (
    AgentCard,
    CancelTaskRequest,
    GetTaskRequest,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    TaskState,
)
from a2a.types import Message as A2AMessage
from a2a.utils.errors import A2AError
from google.protobuf import json_format, struct_pb2
from typing_extensions import Self

from agentry.a2a._errors import A2AConfigError, RemoteAgentError
from agentry.a2a._parts import METADATA_PROPERTY, content_to_part
from agentry.a2a._task_reader import FAILED_STATES, WAITING_STATES, TaskReader, task_has_ended
from agentry.agents import BaseAgent
from agentry.errors import ContentError
from agentry.sessions import AgentSession
from agentry.types import (
    AgentResponseUpdate,
    Message,
)

__all__ = ["A2AAgent"]

_STATE_KEY = "agentry.a2a.remote"
_FIRST_POLL = 0.05
_LONGEST_POLL = 1.0


class A2AAgent(BaseAgent):
    """A remote A2A agent, used like any agentry agent.

    Each run sends the input as one A2A message and streams the remote task's artifacts
    back as text updates. With a session, the remote `context_id` is kept in the session,
    so later runs continue the same remote conversation. When the remote task needs
    input, the run ends with that request: a tool-approval request becomes a
    `function_approval_request` content (answer it with
    `request.to_function_approval_response(approved)` in the next run on the session),
    a workflow's request for information becomes a `function_call` named `request_info`
    (answer it with a `function_result` for its call id), and any other question is
    returned as text that the next run answers. A task in `auth-required` ends the run
    with an `authorization_request` content: answer it with
    `request.to_authorization_response(credentials)` (in band) or, once the person has
    authorized at `request.uri`, `request.to_authorization_response()` (out of band; the
    next run follows the task, which may have gone on already).

    Args:
        url: The base URL of the remote agent (its card is read from it).
        agent_card: The remote agent's card, instead of `url`.
        name: The agent's name (default: the card's).
        description: The agent's description (default: the card's).
        streaming: Stream the remote task (when the remote agent can). Without streaming,
            the message is sent with `return_immediately` and the task is polled until it
            ends, so an abandoned run still cancels it.
        bindings: Protocol bindings to use, in order of preference.
        timeout: Seconds to wait for each HTTP exchange with the remote agent.
        httpx_client: An HTTP client to use (default: one owned by the agent).
        id: A stable id for the agent.
        middleware: Agent middleware around each run.

    Example:
        >>> agent = A2AAgent(url="http://127.0.0.1:8000")
        >>> async def ask():
        ...     async with agent:
        ...         return (await agent.run("Hello")).text
    """

    def __init__(
        self,
        *,
        url: str | None = None,
        agent_card: AgentCard | None = None,
        name: str | None = None,
        description: str | None = None,
        streaming: bool = True,
        bindings: Sequence[str] = ("JSONRPC", "HTTP+JSON"),
        timeout: float = 300.0,
        httpx_client: httpx.AsyncClient | None = None,
        id: str | None = None,
        middleware: Sequence[Any] | None = None,
    ) -> None:
        if (url is None) == (agent_card is None):
            raise A2AConfigError(
                "A2AAgent needs exactly one of url= (the remote agent's base URL) or "
                "agent_card= (its card)"
            )
        super().__init__(
            id=id,
            name=name or (agent_card.name if agent_card is not None else None),
            description=description or (agent_card.description if agent_card else None),
            middleware=middleware,
        )
        self.url = url
        self.agent_card = agent_card
        self.streaming = streaming
        self.bindings = list(bindings)
        self._http = httpx_client
        self._owns_http = httpx_client is None
        self._timeout = timeout
        self._client: Client | None = None
        self._client_lock = asyncio.Lock()

    async def __aenter__(self) -> Self:
        await self._get_client()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection to the remote agent."""
        if self._client is not None:
            await self._client.close()
            self._client = None
        if self._http is not None and self._owns_http:
            await self._http.aclose()
            self._http = None

    def _run_updates(
        self, messages: list[Message], session: AgentSession | None, *, stream: bool
    ) -> AsyncIterator[AgentResponseUpdate]:
        """Send `messages` to the remote agent as one A2A message.

        Raises:
            RemoteAgentError: The remote task failed, was rejected or canceled, or the
                remote agent could not be reached.
        """
        return self._exchange(messages, session)

    async def _get_client(self) -> Client:
        async with self._client_lock:
            if self._client is None:
                if self._http is None:
                    self._http = httpx.AsyncClient(timeout=self._timeout)
                config = ClientConfig(
                    streaming=self.streaming,
                    httpx_client=self._http,
                    supported_protocol_bindings=self.bindings,
                )
                try:
                    if self.agent_card is None:
                        resolver = A2ACardResolver(self._http, cast(str, self.url))
                        self.agent_card = await resolver.get_agent_card()
                        self.name = self.name or self.agent_card.name or None
                        self.description = self.description or self.agent_card.description or None
                    self._client = await create_client(self.agent_card, client_config=config)
                except (A2AError, httpx.HTTPError, ValueError) as error:
                    raise RemoteAgentError(
                        f"cannot connect to the A2A agent at {self.url or 'its card URL'}: {error}"
                    ) from error
            return self._client

    def _streams(self) -> bool:
        """Whether runs stream the remote task (the agent can, and was not told not to)."""
        card = self.agent_card
        return self.streaming and card is not None and card.capabilities.streaming

    async def _exchange(
        self, messages: list[Message], session: AgentSession | None
    ) -> AsyncIterator[AgentResponseUpdate]:
        state: dict[str, Any] = (
            cast("dict[str, Any]", session.state.setdefault(_STATE_KEY, {}))
            if session is not None
            else {}
        )
        client = await self._get_client()
        task_id: str = state.get("task_id") or ""
        request = SendMessageRequest(
            message=_outgoing_message(messages, state.get("context_id") or "", task_id)
        )
        reader = TaskReader(self.name, seen=state.get("seen") if task_id else None)
        finished = False
        try:
            if task_id and _says_authorized(messages, state.get("out_of_band") or []):
                events = self._follow(client, request, reader, task_id)
            else:
                events = self._send(client, request, reader)
            async with _closing(events):
                async for event in events:
                    for update in reader.read(event):
                        yield update
                    if reader.ended:
                        break
            finished = True
        except A2AError as error:
            # A task the remote agent refuses to continue (finished, or forgotten) is not
            # offered again: the next run starts a new task in the same context.
            _forget_task(state)
            raise RemoteAgentError(
                f"the A2A agent refused the request: {error}", task_id=reader.task_id
            ) from error
        except httpx.HTTPError as error:
            raise RemoteAgentError(
                f"lost the connection to the A2A agent: {error}", task_id=reader.task_id
            ) from error
        finally:
            if not finished and reader.task_id and not reader.ended:
                await _cancel_quietly(client, reader.task_id)
        if reader.context_id:
            state["context_id"] = reader.context_id
        _forget_task(state)
        requests = reader.finish()
        if reader.state in WAITING_STATES:
            # The next run continues the task; what this run showed is not shown again.
            state.update(task_id=reader.task_id, seen=reader.seen)
            out_of_band = [
                c.id
                for update in requests
                for c in update.contents
                if c.type == "authorization_request" and c.flow == "out_of_band"
            ]
            if out_of_band:
                state["out_of_band"] = out_of_band
        elif reader.state in FAILED_STATES:
            raise RemoteAgentError(
                f"the A2A agent's task ended {FAILED_STATES[reader.state]}: "
                f"{reader.status_text or 'no reason given'}",
                state=FAILED_STATES[reader.state],
                task_id=reader.task_id,
            )
        for update in requests:
            yield update

    def _send(
        self, client: Client, request: SendMessageRequest, reader: TaskReader
    ) -> AsyncIterator[StreamResponse]:
        if self._streams():
            return client.send_message(request)
        return _polled_events(client, request, reader)

    async def _follow(
        self, client: Client, request: SendMessageRequest, reader: TaskReader, task_id: str
    ) -> AsyncIterator[StreamResponse]:
        """Events of a task that waited for out-of-band authorizations the caller says are
        done: a task still waiting gets the message, which makes the remote agent check
        again; a task that went on already is read until it ends or waits again.

        The task is read whole each time (not subscribed to), so what a run has shown is
        never shown twice.
        """
        task = await client.get_task(GetTaskRequest(id=task_id))
        if task.status.state == TaskState.TASK_STATE_AUTH_REQUIRED:
            try:
                async with _closing(self._send(client, request, reader)) as events:
                    async for event in events:
                        yield event
                return
            except A2AError:
                # The flow was completed on the server meanwhile, and the task went on
                # (and ended) before the message arrived: follow the task instead.
                task = await client.get_task(GetTaskRequest(id=task_id))
                if task.status.state == TaskState.TASK_STATE_AUTH_REQUIRED:
                    raise
        yield StreamResponse(task=task)
        async for event in _polled_until_ended(client, reader):
            yield event


@contextlib.asynccontextmanager
async def _closing(
    events: AsyncIterator[StreamResponse],
) -> AsyncGenerator[AsyncIterator[StreamResponse], None]:
    """`events`, closed when the block ends (a run that stops reading closes its stream)."""
    try:
        yield events
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()


def _forget_task(state: dict[str, Any]) -> None:
    for key in ("task_id", "seen", "out_of_band"):
        state.pop(key, None)


def _says_authorized(messages: list[Message], out_of_band: list[str]) -> bool:
    """Whether `messages` only say that out-of-band authorizations are done."""
    contents = [c for m in messages for c in m.contents]
    return bool(contents) and all(
        c.type == "authorization_response"
        and c.approved is not False
        and not c.credentials
        and c.id in out_of_band
        for c in contents
    )


def _outgoing_message(messages: list[Message], context_id: str, task_id: str) -> A2AMessage:
    parts: list[Part] = []
    approvals: dict[str, bool] = {}
    responses: dict[str, Any] = {}
    for message in messages:
        for content in message.contents:
            if content.type == "function_approval_response":
                approvals[content.id or ""] = bool(content.approved)
            elif content.type == "authorization_response":
                if content.credentials:
                    answer = {"id": content.id or "", "credentials": dict(content.credentials)}
                    parts.append(
                        Part(
                            data=json_format.ParseDict(answer, struct_pb2.Value()),
                            media_type="application/json",
                        )
                    )
                else:  # out of band: done (check again), or declined
                    approvals[content.id or ""] = content.approved is not False
            elif content.type == "function_result":
                responses[content.call_id or ""] = _jsonable(content.result)
            elif message.role in ("user", "system"):
                part = content_to_part(content)
                if part is not None:
                    parts.append(part)
    answers: dict[str, Any] = {}
    if approvals:
        answers["approvals"] = approvals
    if responses:
        answers["responses"] = responses
    if answers:
        parts.append(
            Part(
                data=json_format.ParseDict(answers, struct_pb2.Value()),
                media_type="application/json",
            )
        )
    if not parts:
        raise ContentError("A2AAgent needs input to send: text, data, files, or approval responses")
    outgoing = A2AMessage(
        message_id=next((m.message_id for m in reversed(messages) if m.message_id), None)
        or uuid.uuid4().hex,
        role=Role.ROLE_USER,
        context_id=context_id,
        task_id=task_id,
        parts=parts,
    )
    metadata: dict[str, Any] = {}
    for message in messages:
        value = (message.additional_properties or {}).get(METADATA_PROPERTY)
        if isinstance(value, dict):
            metadata.update(cast("dict[str, Any]", _jsonable(value)))
    if metadata:
        outgoing.metadata.update(metadata)
    return outgoing


async def _polled_events(
    client: Client, request: SendMessageRequest, reader: TaskReader
) -> AsyncIterator[StreamResponse]:
    """Events of a task followed without streaming: the task as soon as the remote agent
    has made it (so the run knows its id from the start), then the task once it ends.

    The message is sent with `return_immediately`; the task is then read with `GetTask`
    every 50 ms at first, less often as it runs longer (at most once a second).
    """
    request.configuration.return_immediately = True
    async for event in client.send_message(request):
        yield event
    async for event in _polled_until_ended(client, reader):
        yield event


async def _polled_until_ended(client: Client, reader: TaskReader) -> AsyncIterator[StreamResponse]:
    """The task `reader` follows, once it has ended or waits for the user."""
    delay = _FIRST_POLL
    while reader.task_id and not reader.ended:
        await asyncio.sleep(delay)
        delay = min(delay * 2, _LONGEST_POLL)
        task = await client.get_task(GetTaskRequest(id=reader.task_id))
        if task_has_ended(task):
            yield StreamResponse(task=task)


def _jsonable(value: Any) -> Any:
    """A value protobuf's JSON can carry (function results are JSON-ready already)."""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value


async def _cancel_quietly(client: Client, task_id: str) -> None:
    """Ask the remote agent to stop a task this run abandoned; ignore failures."""
    with contextlib.suppress(A2AError, httpx.HTTPError, asyncio.TimeoutError):
        await asyncio.wait_for(client.cancel_task(CancelTaskRequest(id=task_id)), 5)
