"""`AgentryAgentExecutor`: runs an agentry agent behind an A2A server.

One A2A message starts (or continues) one agent run. The executor streams the run's text
as one artifact, reports tool calls as `working` status updates, turns tool-approval
requests and workflow requests for information into `input-required` and authorization
requests into `auth-required`, and always ends a task in a terminal or interrupted state.
An executor made with `reply_with="message"` answers a new message with one bare message
instead, unless the run needs input or fails.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message as A2AMessage
from a2a.types import Part
from a2a.utils.errors import InvalidParamsError

from agentry.a2a._answers import (
    ANSWER_HINT,
    FollowUp,
    declined_results,
    describe_requests,
    is_authorization_request,
    is_info_request,
    read_follow_up,
)
from agentry.a2a._authorizations import (
    OutOfBandWaits,
    authorization_text,
    take_credentials,
    waits_out_of_band,
)
from agentry.a2a._durable_tasks import (
    DurableTasks,
    FollowUpSent,
    StoreEvents,
    answer_artifact_id,
)
from agentry.a2a._errors import A2AConfigError
from agentry.a2a._parts import content_to_part, message_to_agentry, to_a2a_message
from agentry.a2a._replies import MessageReply, Reply, ReplyMode, TaskReply, check_reply_mode
from agentry.a2a._sessions import ContextSessionStore, InMemoryContextSessionStore
from agentry.agents import Agent, SupportsAgentRun
from agentry.observability import get_telemetry_observer
from agentry.sessions import AgentSession
from agentry.types import AgentResponseUpdate, Content, Message

if TYPE_CHECKING:
    from agentry.durable import DurableRuntime

__all__ = ["NO_CONTENT_MESSAGE", "AgentryAgentExecutor"]

logger = logging.getLogger("agentry.a2a")

_STATE_KEY = "agentry.a2a"

NO_CONTENT_MESSAGE = "the message has no content: send at least one text, data, raw or url part"
"""Why a message without content is refused."""


class AgentryAgentExecutor(AgentExecutor):
    """Hosts an agentry agent (or a workflow's `as_agent()`) as an A2A agent executor.

    Each A2A context is one agentry session, so follow-up messages with the same
    `context_id` continue the conversation. Tool-approval requests (and a workflow's
    requests for information) put the task in `TASK_STATE_INPUT_REQUIRED`; the user's next
    message on the task (yes/no, a data part `{"approved": true}`, or the information)
    answers them and the run resumes. A message on the task that holds no answer at all is
    a new message: the waiting approvals are declined and the agent gets the message.

    A tool's authorization request puts the task in `TASK_STATE_AUTH_REQUIRED`. In band,
    the run returns and the user's next message on the task carries the credentials (a
    data part `{"id": "<request id>", "credentials": {...}}`); without them (or with
    malformed ones) the task keeps waiting and says why. Out of band, the run keeps
    waiting until :meth:`complete_authorization` is called for the task, a message
    arrives on it (:meth:`stop_waiting`), the task is canceled, or `out_of_band_wait`
    seconds pass. Failures end the task in `TASK_STATE_FAILED` with the reason;
    cancellation ends it in `TASK_STATE_CANCELED`.

    With `durable`, each task's run is a durable agent run whose id is the task's id (see
    `agentry.durable`): its model and tool calls are recorded steps, a tool approval
    waits in the runtime's database, and a server that finds the task left `working` by a
    dead server follows the run (:meth:`resume_task`) instead of failing the task.

    Args:
        agent: The agent to run.
        sessions: Where sessions are kept between messages (default: in memory).
        reply_with: `"task"` (the default) answers every message with a task;
            `"message"` answers a new message with one bare A2A message holding the whole
            answer, and uses a task only when the run needs input or fails.
        out_of_band_wait: Seconds a run waits for an out-of-band authorization before it
            returns, leaving the task `auth-required` (the next message on the task tries
            again); `None` waits until the task is canceled.
        durable: A durable runtime to run the agent in (an `Agent` with a name; it is
            registered in the runtime if it is not already). The caller launches it.

    Raises:
        A2AConfigError: `reply_with` is neither `"task"` nor `"message"`,
            `out_of_band_wait` is not positive, or `durable` is given with an agent that
            is not an `Agent`.

    Example:
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> agent = ScriptedChatClient(["Hello!"]).as_agent(name="greeter")
        >>> executor = AgentryAgentExecutor(agent, reply_with="message")
    """

    def __init__(
        self,
        agent: SupportsAgentRun,
        *,
        sessions: ContextSessionStore | None = None,
        reply_with: ReplyMode = "task",
        out_of_band_wait: float | None = 600.0,
        durable: DurableRuntime | None = None,
    ) -> None:
        if out_of_band_wait is not None and out_of_band_wait <= 0:
            raise A2AConfigError(f"out_of_band_wait must be positive, got {out_of_band_wait}")
        self.durable: DurableTasks | None = None
        if durable is not None:
            if not isinstance(agent, Agent):
                raise A2AConfigError(
                    f"a durable server runs an Agent, not a {type(agent).__name__}; serve "
                    "a workflow durably with agentry.durable's workflows instead"
                )
            self.durable = DurableTasks(durable, agent)
        self.agent = agent
        self.sessions: ContextSessionStore = sessions or InMemoryContextSessionStore()
        self.reply_with: ReplyMode = check_reply_mode(reply_with)
        self.out_of_band_wait = out_of_band_wait
        self._waits = OutOfBandWaits()
        # One run at a time per context; a lock disappears once no run holds or awaits it.
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._cleanups: set[asyncio.Task[None]] = set()
        self._runs: dict[str, asyncio.Task[None]] = {}
        self._stopped: set[str] = set()

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Run the agent on the request's message and publish the task's events."""
        message = context.message
        task_id = context.task_id or ""
        current = context.current_task
        # A follow-up naming only its task gets a fresh context id from the SDK; the
        # conversation is the task's own context.
        context_id = (current.context_id if current else None) or context.context_id or ""
        if message is None:
            raise InvalidParamsError(message="the request has no message to run the agent on")
        credentials = take_credentials(context)
        user_message = message_to_agentry(message)
        if not user_message.contents:
            raise InvalidParamsError(message=NO_CONTENT_MESSAGE)
        reply: Reply
        if current is None and self.reply_with == "message":
            reply = MessageReply(
                event_queue, task_id=task_id, context_id=context_id, request=message
            )
        else:
            reply = task = TaskReply(
                event_queue,
                task_id=task_id,
                context_id=context_id,
                request=message,
                is_new=current is None,
                artifact_id=answer_artifact_id(task_id) if self.durable else None,
            )
            await task.open()
        run = asyncio.create_task(
            get_telemetry_observer().remote_call(
                f"SendMessage {getattr(self.agent, 'name', None) or 'agent'}",
                {
                    "a2a.method": "SendMessage",
                    "a2a.task.id": task_id,
                    "a2a.context.id": context_id,
                },
                self._serve(user_message, credentials, context_id, task_id, reply),
                side="server",
            )
        )
        self._runs[task_id] = run
        try:
            await asyncio.wait({run})
        except asyncio.CancelledError:
            run.cancel()
            await asyncio.gather(run, return_exceptions=True)
            raise
        finally:
            if self._runs.get(task_id) is run:
                del self._runs[task_id]
        if run.cancelled():
            if task_id not in self._stopped:
                raise asyncio.CancelledError
            # Canceled through another server (`stop_run`): the stored task says so
            # already, and this ends the stream with it.
            self._stopped.discard(task_id)
            await reply.cancel("The task was canceled.")
        elif (error := run.exception()) is not None:
            if not isinstance(error, Exception):
                raise error
            logger.error("agent run for A2A task %s failed", task_id, exc_info=error)
            await reply.fail(f"The agent failed: {type(error).__name__}: {error}")

    def running_tasks(self) -> list[str]:
        """The ids of the tasks whose runs are going on in this executor."""
        return list(self._runs)

    def stop_run(self, task_id: str) -> bool:
        """Stop the run of `task_id`, which was canceled elsewhere (through another server
        sharing the task store); the task ends `canceled`.

        Returns:
            Whether a run of the task was going on.
        """
        run = self._runs.get(task_id)
        if run is None or run.done():
            return False
        self._stopped.add(task_id)
        run.cancel()
        return True

    def complete_authorization(
        self, task_id: str | None = None, *, request_id: str | None = None
    ) -> bool:
        """Say that the out-of-band authorization a task waits for is done.

        Call it on the server's event loop (from a route of the application, such as an
        OAuth callback). The waiting run goes on: the tools that asked run again and find
        their authorization (in the token store the application filled).

        Args:
            task_id: The task's id.
            request_id: Instead of `task_id`, the id of the authorization request the task
                waits for: the id of the tool call that asked, which a tool can put in
                its consent URL (as OAuth's `state`) to know it again in the callback.

        Returns:
            `True` when a run was waiting; `False` when none waits (the task ended, was
            canceled, or stopped waiting: the client's next message on it tries again).

        Raises:
            ValueError: Neither or both of `task_id` and `request_id` were given.
        """
        if (task_id is None) == (request_id is None):
            raise ValueError(
                "complete_authorization needs the task_id of the waiting task, or the "
                "request_id of the authorization request it waits for (one of them)"
            )
        waiting = task_id if request_id is None else self._waits.task_of(request_id)
        return waiting is not None and self._waits.end(waiting, "completed")

    def stop_waiting(self, task_id: str) -> bool:
        """Make the run waiting for an out-of-band authorization of `task_id` return,
        leaving the task `auth-required`, so that a message arriving on the task can run.

        `create_app` calls it for each message sent to a task in `auth-required`; call it
        the same way when you host the executor with your own request handler.

        Returns:
            Whether a run was waiting.
        """
        return self._waits.end(task_id, "message")

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Mark the task canceled; the server then stops the running `execute`."""
        task_id, context_id = context.task_id or "", context.context_id or ""
        if self.durable is not None:
            await self.durable.cancel(task_id)
        updater = TaskUpdater(event_queue, task_id, context_id)
        await updater.cancel(updater.new_agent_message([Part(text="The task was canceled.")]))
        # Requests the task was waiting on are forgotten once no run of the context is
        # going on (a running `execute` ends only after this method returns).
        cleanup = asyncio.create_task(self._forget_requests(context_id, task_id))
        self._cleanups.add(cleanup)
        cleanup.add_done_callback(self._cleanups.discard)

    async def _forget_requests(self, context_id: str, task_id: str) -> None:
        async with self._lock(context_id):
            session = await self.sessions.load(context_id)
            if session is not None and _pending_requests(session, task_id):
                _set_pending_requests(session, task_id, [])
                await self.sessions.save(context_id, session)

    def _lock(self, context_id: str) -> asyncio.Lock:
        lock = self._locks.get(context_id)
        if lock is None:
            lock = self._locks[context_id] = asyncio.Lock()
        return lock

    async def _load_session(self, context_id: str) -> AgentSession:
        session = await self.sessions.load(context_id)
        if session is None:
            session = self.agent.create_session(session_id=context_id)
        return session

    async def _serve(
        self,
        user_message: Message,
        credentials: dict[str, object],
        context_id: str,
        task_id: str,
        reply: Reply,
    ) -> None:
        """Run the agent on the message and, while the task waits only for out-of-band
        authorizations, wait for them and go on (without holding the context)."""
        waiting = await self._locked_run(user_message, credentials, context_id, task_id, reply)
        while waiting:
            if await self._waits.wait(task_id, waiting, self.out_of_band_wait) != "completed":
                return
            waiting = await self._locked_run(None, {}, context_id, task_id, reply)

    async def _locked_run(
        self,
        user_message: Message | None,
        credentials: dict[str, object],
        context_id: str,
        task_id: str,
        reply: Reply,
    ) -> list[Content]:
        async with self._lock(context_id):
            session: AgentSession | None = None
            try:
                session = await self._load_session(context_id)
                return await self._run(
                    user_message, credentials, session, context_id, task_id, reply
                )
            except asyncio.CancelledError:
                if session is not None:
                    await self.sessions.save(context_id, session)
                raise

    async def _run(
        self,
        user_message: Message | None,
        credentials: dict[str, object],
        session: AgentSession,
        context_id: str,
        task_id: str,
        reply: Reply,
    ) -> list[Content]:
        """Run the agent; the session is saved before the task's final status goes out.

        `user_message` is `None` when the out-of-band authorizations the task waits for are
        done. Returns the requests the task now waits for when they are all out-of-band
        authorizations (the run waits for them), or nothing.
        """
        if self.durable is not None:
            if user_message is not None:
                await self._run_durably(
                    self.durable, user_message, session, context_id, task_id, reply
                )
            return []
        pending = _pending_requests(session, task_id)
        if user_message is None:
            if not pending:
                return []
            inputs = [Message("user", [r.to_authorization_response() for r in pending])]
        elif pending:
            follow_up = read_follow_up(user_message, pending, credentials)
            if follow_up.answers is not None:
                inputs = [
                    Message(
                        "user",
                        follow_up.answers,
                        message_id=user_message.message_id,
                        additional_properties=user_message.additional_properties,
                    )
                ]
            elif follow_up.is_new_message:
                inputs = [declined_results(pending), user_message]
            else:
                await self._ask(reply, pending, context_id, task_id, _still_waiting(follow_up))
                return []
        else:
            inputs = [user_message]
        if pending:
            _set_pending_requests(session, task_id, [])
        await reply.start()
        requests: list[Content] = []
        answered: set[str] = set()
        stream = self.agent.run(inputs, stream=True, session=session)
        try:
            async for update in stream:
                for content in update.contents:
                    if content.user_input_request or is_info_request(content):
                        requests.append(content)
                    elif content.type == "function_result":
                        answered.add(content.call_id or "")
                await _publish(update, reply)
        finally:
            await stream.aclose()
        # A `request_info` call that got no result in the run waits for the user.
        requests = [r for r in requests if not is_info_request(r) or r.call_id not in answered]
        if requests:
            _set_pending_requests(session, task_id, requests)
            await self.sessions.save(context_id, session)
            await self._ask(reply, requests, context_id, task_id, None)
            return requests if waits_out_of_band(requests) else []
        await self.sessions.save(context_id, session)
        await reply.complete()
        return []

    async def _run_durably(
        self,
        durable: DurableTasks,
        user_message: Message,
        session: AgentSession,
        context_id: str,
        task_id: str,
        reply: Reply,
    ) -> None:
        """Start the task's durable run, or send it the approvals it waits on (or, a new
        message instead, which declines them); follow it.

        A follow-up is saved with the session before it goes to the run, so that a server
        that follows the run after this one died sends it again (it is not delivered
        twice) and does not ask for the approvals it settles.
        """
        pending = _pending_requests(session, task_id)
        if not pending:
            await durable.start(task_id, session, user_message)
            await reply.start()
            await self._follow_durably(durable, session, context_id, task_id, reply)
            return
        follow_up = read_follow_up(user_message, pending)
        if follow_up.answers is None and not follow_up.is_new_message:
            await self._ask(reply, pending, context_id, task_id, _still_waiting(follow_up))
            return
        sent = FollowUpSent(
            settles=[str(r.id) for r in pending],
            answers=follow_up.answers or [],
            message=None if follow_up.answers is not None else user_message,
        )
        await reply.start()
        _set_task_state(session, "sent", task_id, sent.to_dict())
        await self.sessions.save(context_id, session)
        await durable.deliver(task_id, sent)
        await self._follow_durably(durable, session, context_id, task_id, reply)

    async def _follow_durably(
        self,
        durable: DurableTasks,
        session: AgentSession,
        context_id: str,
        task_id: str,
        reply: Reply,
    ) -> None:
        """Publish the task's durable run until it ends (the task completes) or waits for
        approvals other than those the task's last message settled (the task waits for
        input); the session is saved first."""

        async def publish(update: AgentResponseUpdate) -> None:
            await _publish(update, reply)

        sent = _follow_up_sent(session, task_id)
        settled = sent.settles if sent is not None else []
        requests = await durable.follow(task_id, session, publish, answered=settled)
        _set_pending_requests(session, task_id, requests)
        _set_task_state(session, "sent", task_id, None)
        await self.sessions.save(context_id, session)
        if requests:
            await self._ask(reply, requests, context_id, task_id, None)
        else:
            await reply.complete()

    def resume_task(self, task_id: str, events: StoreEvents) -> None:
        """Follow, in the background, the durable run of a task that a dead server left
        running, writing the task's updates and its end through `events`.

        The server's lease calls it for such a task once it has marked the task as
        resumed here; the run itself goes on on whichever worker took it over.
        """
        durable = self.durable
        if durable is None:
            raise A2AConfigError("only a server with a durable runtime resumes tasks")
        context_id = events.context_id
        reply = TaskReply(
            events,
            task_id=task_id,
            context_id=context_id,
            request=A2AMessage(),
            is_new=False,
            artifact_id=answer_artifact_id(task_id),
        )

        async def follow() -> None:
            try:
                async with self._lock(context_id):
                    session = await self._load_session(context_id)
                    sent = _follow_up_sent(session, task_id)
                    if sent is not None:
                        await durable.deliver_again(task_id, sent)
                    await self._follow_durably(durable, session, context_id, task_id, reply)
            except Exception as error:
                logger.error("resumed A2A task %s failed", task_id, exc_info=error)
                await reply.fail(f"The agent failed: {type(error).__name__}: {error}")

        run = asyncio.create_task(follow(), name=f"agentry-a2a-resume-{task_id}")
        self._runs[task_id] = run
        run.add_done_callback(lambda _: self._runs.pop(task_id, None))

    async def _ask(
        self,
        reply: Reply,
        requests: list[Content],
        context_id: str,
        task_id: str,
        problem: str | None,
    ) -> None:
        """Put the task in `input-required`, or `auth-required` when an authorization is
        among the `requests`; the status message says what is needed (and `problem`)."""
        auth = any(is_authorization_request(r) for r in requests)
        hint = ANSWER_HINT if problem else f"The agent needs your input. {ANSWER_HINT}"
        if auth:
            others = any(not is_authorization_request(r) for r in requests)
            hint = authorization_text(requests) + (f" {hint}" if others else "")
        text = f"{problem} {hint}" if problem else hint
        await reply.ask(_asking(requests, context_id, task_id, text), auth=auth)


def _still_waiting(follow_up: FollowUp) -> str:
    """What a follow-up that leaves requests open did not do."""
    problems = "".join(f" {p[0].upper()}{p[1:]}." for p in follow_up.problems)
    waits_for = describe_requests(follow_up.open_requests)
    return (
        f"The task still waits for {waits_for}; answer every waiting request in one "
        f"message.{problems}"
    )


async def _publish(update: AgentResponseUpdate, reply: Reply) -> None:
    for content in update.contents:
        if content.type == "function_call" and not is_info_request(content):
            await reply.progress(f"Calling tool {content.name}.")
        elif content.type == "function_result":
            await reply.progress("Tool call finished.")
        elif update.role in (None, "assistant") and not content.user_input_request:
            part = content_to_part(content)
            if part is not None:
                await reply.add(part)


def _asking(requests: Sequence[Content], context_id: str, task_id: str, text: str) -> A2AMessage:
    """The status message of a task waiting for `requests`: one data part each, and `text`."""
    return to_a2a_message(
        requests, context_id=context_id, task_id=task_id, extra_parts=[Part(text=text)]
    )


def _pending_requests(session: AgentSession, task_id: str) -> list[Content]:
    state = cast("dict[str, object]", session.state.get(_STATE_KEY) or {})
    stored = cast("dict[str, list[dict[str, object]]]", state.get("pending") or {})
    return [Content.from_dict(item) for item in stored.get(task_id, [])]


def _set_pending_requests(session: AgentSession, task_id: str, requests: list[Content]) -> None:
    _set_task_state(session, "pending", task_id, [r.to_dict() for r in requests])


def _follow_up_sent(session: AgentSession, task_id: str) -> FollowUpSent | None:
    """The follow-up last sent to a durable task's run, until the run is followed past it."""
    state = cast("dict[str, object]", session.state.get(_STATE_KEY) or {})
    sent = cast("dict[str, dict[str, Any]]", state.get("sent") or {})
    return FollowUpSent.from_dict(sent[task_id]) if task_id in sent else None


def _set_task_state(session: AgentSession, key: str, task_id: str, value: object) -> None:
    """Keep `value` for the task under `key` in the session's state (remove it if empty)."""
    state = cast("dict[str, object]", session.state.setdefault(_STATE_KEY, {}))
    by_task = cast("dict[str, object]", state.setdefault(key, {}))
    if value:
        by_task[task_id] = value
    else:
        by_task.pop(task_id, None)
