"""Reading a remote A2A task's events as agentry updates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from a2a.types import Message as A2AMessage
from a2a.types import Part, StreamResponse, Task, TaskState

from agentry.a2a._parts import (
    APPROVAL_REQUEST_KIND,
    AUTHORIZATION_REQUEST_KIND,
    INFO_REQUEST_KIND,
    data_of,
    part_to_content,
)
from agentry.types import AgentResponseUpdate, Content

__all__ = ["FAILED_STATES", "WAITING_STATES", "TaskReader", "task_has_ended"]

FAILED_STATES: dict[int, str] = {
    TaskState.TASK_STATE_FAILED: "failed",
    TaskState.TASK_STATE_REJECTED: "rejected",
    TaskState.TASK_STATE_CANCELED: "canceled",
}
"""Final states that make a run fail, with their protocol names."""

WAITING_STATES = frozenset(
    {TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED}
)
"""States of a task waiting for the user: the run ends with the task's requests."""


def task_has_ended(task: Task) -> bool:
    """Whether `task` ended, or waits for the user: a run following it is over."""
    return _ends_the_run(task.status.state)


def _ends_the_run(state: TaskState.ValueType) -> bool:
    return (
        state in FAILED_STATES or state in WAITING_STATES or state == TaskState.TASK_STATE_COMPLETED
    )


class TaskReader:
    """Turns the remote task's events into agentry updates.

    Args:
        author: The author name of the updates.
        seen: The text of artifacts an earlier run showed already, by artifact id (when
            following a task that run left waiting): only what they gain is shown.
    """

    def __init__(self, author: str | None, *, seen: Mapping[str, str] | None = None) -> None:
        self.author = author
        self.task_id = ""
        self.context_id = ""
        self.state: TaskState.ValueType = TaskState.TASK_STATE_UNSPECIFIED
        self.status_text = ""
        self._status_parts: list[Part] = []
        self._streamed: dict[str, str] = dict(seen or {})

    @property
    def seen(self) -> dict[str, str]:
        """The text of the artifacts shown so far, by artifact id."""
        return dict(self._streamed)

    @property
    def ended(self) -> bool:
        """Whether the run is over: the task ended, or waits for the user."""
        return _ends_the_run(self.state)

    def read(self, event: StreamResponse) -> list[AgentResponseUpdate]:
        kind = event.WhichOneof("payload")
        if kind == "message":
            self.context_id = event.message.context_id or self.context_id
            self.state = TaskState.TASK_STATE_COMPLETED
            return self._updates([part_to_content(p) for p in event.message.parts])
        if kind == "task":
            return self._read_task(event.task)
        if kind == "status_update":
            self.task_id = event.status_update.task_id or self.task_id
            self.context_id = event.status_update.context_id or self.context_id
            self._status(event.status_update.status.state, event.status_update.status.message)
            return []
        if kind == "artifact_update":
            update = event.artifact_update
            self.task_id = update.task_id or self.task_id
            return self._artifact(
                update.artifact.artifact_id, list(update.artifact.parts), update.append
            )
        return []

    def finish(self) -> list[AgentResponseUpdate]:
        """The updates the task's final status asks for (input and authorization requests)."""
        if self.state not in WAITING_STATES:
            return []
        return self._updates([_input_request(p) for p in self._status_parts])

    def _read_task(self, task: Task) -> list[AgentResponseUpdate]:
        self.task_id = task.id or self.task_id
        self.context_id = task.context_id or self.context_id
        self._status(task.status.state, task.status.message)
        updates: list[AgentResponseUpdate] = []
        for artifact in task.artifacts:
            updates.extend(self._artifact(artifact.artifact_id, list(artifact.parts), False))
        return updates

    def _status(self, state: TaskState.ValueType, message: A2AMessage) -> None:
        self.state = state
        self._status_parts = list(message.parts)
        self.status_text = " ".join(p.text for p in message.parts if p.text)

    def _artifact(
        self, artifact_id: str, parts: list[Part], append: bool
    ) -> list[AgentResponseUpdate]:
        """Parts new to the caller; a replacement of a streamed artifact adds only its rest."""
        text = "".join(p.text for p in parts if p.WhichOneof("content") == "text")
        seen = self._streamed.get(artifact_id)
        if seen is None or append:
            self._streamed[artifact_id] = (seen or "") + text
            return self._updates([part_to_content(p) for p in parts])
        self._streamed[artifact_id] = text
        if text.startswith(seen) and len(text) > len(seen):
            return self._updates([Content.from_text(text[len(seen) :])])
        return []

    def _updates(self, contents: Sequence[Content | None]) -> list[AgentResponseUpdate]:
        kept = [c for c in contents if c is not None]
        if not kept:
            return []
        return [AgentResponseUpdate(contents=kept, role="assistant", author_name=self.author)]


def _input_request(part: Part) -> Content | None:
    """A status part of an input-required task as agentry content."""
    if part.WhichOneof("content") == "data":
        value = data_of(part)
        data = cast("dict[str, Any]", value) if isinstance(value, dict) else {}
        if data.get("kind") == INFO_REQUEST_KIND:
            request_id = str(data.get("id") or "")
            return Content.from_function_call(
                call_id=request_id,
                name=INFO_REQUEST_KIND,
                arguments={"request_id": request_id, "data": data.get("data")},
            )
        if data.get("kind") == AUTHORIZATION_REQUEST_KIND:
            return _authorization_request(data)
        if data.get("kind") == APPROVAL_REQUEST_KIND:
            call = Content.from_function_call(
                call_id=str(data.get("call_id") or data.get("id") or ""),
                name=str(data.get("name") or ""),
                arguments=cast("dict[str, Any]", data.get("arguments") or {}),
            )
            return Content.from_function_approval_request(
                id=str(data.get("id") or ""), function_call=call
            )
    return part_to_content(part)


def _authorization_request(data: dict[str, Any]) -> Content:
    """An authorization request's data part as an `authorization_request` content."""
    call: Content | None = None
    if data.get("name"):
        call = Content.from_function_call(
            call_id=str(data.get("call_id") or data.get("id") or ""),
            name=str(data["name"]),
            arguments=cast("dict[str, Any]", data.get("arguments") or {}),
        )
    url, reason = data.get("url"), data.get("reason")
    return Content.from_authorization_request(
        id=str(data.get("id") or ""),
        description=str(data.get("description") or ""),
        scheme=str(data.get("scheme") or "bearer"),
        url=str(url) if url else None,
        flow="out_of_band" if data.get("flow") == "out_of_band" else "in_band",
        function_call=call,
        reason=str(reason) if reason else None,
    )
