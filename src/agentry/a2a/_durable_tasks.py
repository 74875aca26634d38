"""Durable agent runs behind A2A tasks: a task whose server dies goes on on another server.

With a `DurableRuntime`, the run of each task is a durable agent run whose id is the
task's id: each model call and tool call is a recorded step. The server that got the
message follows the run and writes the task's updates. When that server dies, its
durable runs are taken over by a live worker (the runtime's takeover), and a server
sharing the task store that finds the task left `working` follows the run instead of
failing the task: it writes the rest of the task's updates and its end. A context's
conversation is kept in its session's state, and each run starts from it. A message on a
task whose run waits for approvals answers them, or declines them and goes to the agent
in the same run; it is kept with the session before it is sent, so that the server that
follows the run next sends it again if the sender died first.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from a2a.server.context import ServerCallContext
from a2a.server.events import Event, EventQueue
from a2a.server.tasks import TaskManager
from typing_extensions import override

from agentry.a2a._answers import DECLINED_RESULT, describe_requests, is_authorization_request
from agentry.a2a._errors import A2AConfigError
from agentry.types import Content, Message

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Collection

    from a2a.server.cluster import VersionedTaskStore

    from agentry.agents import Agent
    from agentry.durable import DurableRuntime
    from agentry.sessions import AgentSession
    from agentry.types import AgentResponseUpdate

__all__ = [
    "RESUMED_TASK_MESSAGE",
    "DurableTasks",
    "FollowUpSent",
    "StoreEvents",
    "answer_artifact_id",
]

RESUMED_TASK_MESSAGE = (
    "The server running this task stopped; the task goes on from its last completed step."
)
"""The status message of a task whose durable run another server follows now."""

_CONVERSATION_KEY = "agentry.a2a.conversation"


def answer_artifact_id(task_id: str) -> str:
    """The id of a durable task's answer artifact: the same on every server, so that a
    server following the run after another one replaces the answer instead of adding one."""
    return f"{task_id}-answer"


@dataclass
class FollowUpSent:
    """A follow-up sent to a task's durable run, kept with the session before it is sent
    so that a server following the run after the sender died can send it again.

    Attributes:
        settles: The ids of the approval requests it answers or declines.
        answers: The approvals (`function_approval_response` contents), when it answers.
        message: The new message sent instead of answers, when it declines them.
    """

    settles: list[str]
    answers: list[Content] = field(default_factory=list[Content])
    message: Message | None = None

    def to_dict(self) -> dict[str, object]:
        """The follow-up as JSON."""
        return {
            "settles": self.settles,
            "answers": [a.to_dict() for a in self.answers],
            "message": None if self.message is None else self.message.to_dict(),
        }

    @classmethod
    def from_dict(cls, value: dict[str, Any]) -> FollowUpSent:
        """The follow-up `to_dict` gave."""
        settles = cast("list[str]", value.get("settles") or [])
        answers = cast("list[dict[str, Any]]", value.get("answers") or [])
        message = cast("dict[str, Any] | None", value.get("message"))
        return cls(
            settles=list(settles),
            answers=[Content.from_dict(a) for a in answers],
            message=None if message is None else Message.from_dict(message),
        )


class DurableTasks:
    """The durable agent runs of one server's tasks, on a `DurableRuntime`.

    Args:
        runtime: The runtime the runs are recorded in; this server launches it.
        agent: The agent served; registered in `runtime` if it is not already.
    """

    def __init__(self, runtime: DurableRuntime, agent: Agent) -> None:
        self.runtime = runtime
        self.agent_name = runtime.register_agent(agent)

    async def has_run(self, task_id: str) -> bool:
        """Whether the task has a durable agent run (it started on a durable server)."""
        from agentry.durable import DurableRunError

        try:
            await self.runtime.agent_run(task_id).status()
        except DurableRunError:
            return False
        return True

    async def start(self, task_id: str, session: AgentSession, message: Message) -> None:
        """Start the task's run on the context's conversation and `message`."""
        conversation = _conversation(session)
        await self.runtime.start_agent(self.agent_name, [*conversation, message], run_id=task_id)

    async def deliver(self, task_id: str, follow_up: FollowUpSent) -> None:
        """Send the run a follow-up: the person's approvals, or a new message instead
        (which declines the approvals the run waits on)."""
        run = self.runtime.agent_run(task_id)
        if follow_up.message is not None:
            await run.send_message(follow_up.message, declined_result=DECLINED_RESULT)
            return
        for answer in follow_up.answers:
            await run.send_response(str(answer.id), bool(answer.approved))

    async def deliver_again(self, task_id: str, follow_up: FollowUpSent) -> None:
        """Send a follow-up that a dead server may or may not have sent: sent already, it
        is not delivered twice, and a run that took it already refuses it (ignored)."""
        from agentry.durable import DurableRunError

        with contextlib.suppress(DurableRunError):
            await self.deliver(task_id, follow_up)

    async def cancel(self, task_id: str) -> None:
        """Cancel the task's run, if it has one."""
        if await self.has_run(task_id):
            await self.runtime.client().cancel_workflow_async(task_id)

    async def follow(
        self,
        task_id: str,
        session: AgentSession,
        publish: Callable[[AgentResponseUpdate], Awaitable[None]],
        *,
        answered: Collection[str] = (),
    ) -> list[Content]:
        """Publish the run's updates from its start until it ends or waits for approvals
        other than the `answered` ones (sent, but perhaps not yet received by the run).

        Returns:
            The approval requests the run waits on; none when it ended, in which case the
            context's conversation in `session` holds the run's messages.

        Raises:
            DurableRunFailedError: The run failed.
            A2AConfigError: The run ended asking for authorizations, which a durable
                server does not wait for.
        """
        run = self.runtime.agent_run(task_id)
        async for update in run.stream():
            if any(c.type == "function_approval_request" for c in update.contents):
                # Replayed from the start: only a wait not yet answered stops here.
                waiting = [r for r in await run.pending_requests() if r.id not in answered]
                if waiting:
                    return waiting
                continue
            await publish(update)
        _set_conversation(session, await run.messages())
        response = await run.result()
        waits = [r for r in response.user_input_requests if is_authorization_request(r)]
        if waits:
            raise A2AConfigError(
                f"the agent asks for {describe_requests(waits)}, and a durable server does "
                "not wait for authorizations (the credentials sent on the task would be "
                "stored with the run); serve the agent without a durable runtime, or give "
                "the tool its credentials on the server"
            )
        return []


def _conversation(session: AgentSession) -> list[Message]:
    stored = cast("list[dict[str, object]]", session.state.get(_CONVERSATION_KEY) or [])
    return [Message.from_dict(item) for item in stored]


def _set_conversation(session: AgentSession, messages: list[Message]) -> None:
    session.state[_CONVERSATION_KEY] = [m.to_dict() for m in messages if m.contents]


class StoreEvents(EventQueue):
    """An event queue that writes each event of a task straight to the task store: how a
    server writes a task it follows without a request for it."""

    def __init__(
        self, store: VersionedTaskStore, context: ServerCallContext, task_id: str, context_id: str
    ) -> None:
        self.context_id = context_id
        self._manager = TaskManager(store, context, task_id, context_id, None)

    @override
    async def enqueue_event(self, event: Event) -> None:
        await self._manager.process(event)
