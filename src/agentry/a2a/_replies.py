"""How the executor answers one A2A request: as a task, or as one bare message.

A task reply publishes the run as it goes: the submitted task, `working` status updates,
the answer streamed as one artifact, and a final (or `input-required`, or
`auth-required`) state. A message reply gathers the answer and sends it as a single A2A
`Message`; when the run needs the user's input or fails, it becomes a task after all,
since only a task can wait or fail.
"""

from __future__ import annotations

import uuid
from typing import Literal, Protocol, cast, get_args

from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message as A2AMessage
from a2a.types import Part, Role, Task, TaskState, TaskStatus

from agentry.a2a._errors import A2AConfigError

__all__ = [
    "ARTIFACT_NAME",
    "MessageReply",
    "Reply",
    "ReplyMode",
    "TaskReply",
    "check_reply_mode",
]

ReplyMode = Literal["task", "message"]
"""How the server answers a new message: with a task (the default) or a bare message."""


def check_reply_mode(reply_with: str) -> ReplyMode:
    """`reply_with` as a reply mode.

    Raises:
        A2AConfigError: It is neither `"task"` nor `"message"`.
    """
    if reply_with not in get_args(ReplyMode):
        raise A2AConfigError(f'reply_with must be "task" or "message", got {reply_with!r}')
    return cast("ReplyMode", reply_with)


ARTIFACT_NAME = "response"
"""The name of the artifact that holds the agent's answer."""


class Reply(Protocol):
    """Where the executor publishes one run."""

    async def start(self) -> None:
        """The run starts."""
        ...

    async def progress(self, text: str) -> None:
        """Something happened in the run (a tool call), in words."""
        ...

    async def add(self, part: Part) -> None:
        """A piece of the answer."""
        ...

    async def complete(self) -> None:
        """The run ended with its answer."""
        ...

    async def ask(self, message: A2AMessage, *, auth: bool = False) -> None:
        """The run waits for the user's input (`auth`: for authorization); `message` says
        what it needs."""
        ...

    async def fail(self, text: str) -> None:
        """The run failed; `text` says why."""
        ...

    async def cancel(self, text: str) -> None:
        """The task was canceled while the run went on; `text` says so."""
        ...


class TaskReply:
    """Publishes a run as a task.

    Args:
        event_queue: The request's event queue.
        task_id: The task's id.
        context_id: The task's context id.
        request: The user's message, the first entry of a new task's history.
        is_new: Whether the task is new (it is announced as `submitted` first).
        artifact_id: The id of the answer's artifact (default: a fresh one).
    """

    def __init__(
        self,
        event_queue: EventQueue,
        *,
        task_id: str,
        context_id: str,
        request: A2AMessage,
        is_new: bool,
        artifact_id: str | None = None,
    ) -> None:
        self._queue = event_queue
        self._request = request
        self._is_new = is_new
        self.updater = TaskUpdater(event_queue, task_id, context_id)
        self._writer = _ArtifactWriter(self.updater, artifact_id or uuid.uuid4().hex)

    async def open(self) -> None:
        """Announce a new task as `submitted`; a continued task exists already."""
        if self._is_new:
            self._is_new = False
            await self._queue.enqueue_event(
                Task(
                    id=self.updater.task_id,
                    context_id=self.updater.context_id,
                    status=_submitted_now(),
                    history=[self._request],
                )
            )

    async def start(self) -> None:
        await self.open()
        await self.updater.start_work()

    async def progress(self, text: str) -> None:
        await self.updater.update_status(
            TaskState.TASK_STATE_WORKING, self.updater.new_agent_message([Part(text=text)])
        )

    async def add(self, part: Part) -> None:
        await self._writer.add(part)

    async def complete(self) -> None:
        await self._writer.finish()
        await self.updater.complete()

    async def ask(self, message: A2AMessage, *, auth: bool = False) -> None:
        await self.open()
        await self._writer.finish()
        if auth:
            await self.updater.requires_auth(message)
        else:
            await self.updater.requires_input(message)

    async def fail(self, text: str) -> None:
        await self.open()
        await self.updater.failed(self.updater.new_agent_message([Part(text=text)]))

    async def cancel(self, text: str) -> None:
        await self.open()
        await self.updater.cancel(self.updater.new_agent_message([Part(text=text)]))


def _submitted_now() -> TaskStatus:
    """A `submitted` status stamped with the time (the store keeps it as the last update)."""
    status = TaskStatus(state=TaskState.TASK_STATE_SUBMITTED)
    status.timestamp.GetCurrentTime()
    return status


class MessageReply:
    """Answers a new message with one bare A2A message holding the whole answer.

    Takes the same arguments as :class:`TaskReply` (the task id is used only when the
    reply has to become a task).
    """

    def __init__(
        self, event_queue: EventQueue, *, task_id: str, context_id: str, request: A2AMessage
    ) -> None:
        self._queue = event_queue
        self._context_id = context_id
        self._parts = _MergedParts()
        self._task = TaskReply(
            event_queue, task_id=task_id, context_id=context_id, request=request, is_new=True
        )
        # Once the reply became a task (the run waited), the rest of it goes to the task:
        # a run that waited out of band goes on in the same request.
        self._is_task = False

    async def start(self) -> None:
        if self._is_task:
            await self._task.start()

    async def progress(self, text: str) -> None:
        if self._is_task:
            await self._task.progress(text)

    async def add(self, part: Part) -> None:
        if self._is_task:
            await self._task.add(part)
        else:
            self._parts.add(part)

    async def complete(self) -> None:
        if self._is_task:
            await self._task.complete()
            return
        await self._queue.enqueue_event(
            A2AMessage(
                message_id=uuid.uuid4().hex,
                role=Role.ROLE_AGENT,
                context_id=self._context_id,
                parts=self._parts.parts or [Part(text="")],
            )
        )

    async def ask(self, message: A2AMessage, *, auth: bool = False) -> None:
        await self._as_task()
        await self._task.ask(message, auth=auth)

    async def fail(self, text: str) -> None:
        await self._as_task()
        await self._task.fail(text)

    async def cancel(self, text: str) -> None:
        await self._as_task()
        await self._task.cancel(text)

    async def _as_task(self) -> None:
        if self._is_task:
            return
        self._is_task = True
        await self._task.start()
        for part in self._parts.parts:
            await self._task.add(part)


class _MergedParts:
    """Parts of an answer, with consecutive text chunks of one media type merged."""

    def __init__(self) -> None:
        self.parts: list[Part] = []

    def add(self, part: Part) -> bool:
        """Keep `part`; `False` when it holds nothing (empty text)."""
        if part.WhichOneof("content") == "text" and not part.text:
            return False
        previous = self.parts[-1] if self.parts else None
        if (
            previous is not None
            and previous.WhichOneof("content") == "text"
            and part.WhichOneof("content") == "text"
            and previous.media_type == part.media_type
            and not previous.filename
            and not part.filename
        ):
            previous.text += part.text
        else:
            copy = Part()
            copy.CopyFrom(part)
            self.parts.append(copy)
        return True


class _ArtifactWriter:
    """Streams parts into one artifact as they come, then sends the artifact whole.

    Chunks go out appended to the artifact; the closing event replaces the artifact with
    its parts merged (consecutive text chunks as one text part) and marks the last chunk,
    so the stored task holds one clean answer.
    """

    def __init__(self, updater: TaskUpdater, artifact_id: str) -> None:
        self._updater = updater
        self._artifact_id = artifact_id
        self._merged = _MergedParts()

    async def add(self, part: Part) -> None:
        started = bool(self._merged.parts)
        if not self._merged.add(part):
            return
        await self._updater.add_artifact(
            [part],
            artifact_id=self._artifact_id,
            name=ARTIFACT_NAME,
            append=started,
            last_chunk=False,
        )

    async def finish(self) -> None:
        if self._merged.parts:
            await self._updater.add_artifact(
                self._merged.parts,
                artifact_id=self._artifact_id,
                name=ARTIFACT_NAME,
                append=False,
                last_chunk=True,
            )
