"""The A2A `auth-required` state on the server: credentials kept out of storage, and
runs waiting for an out-of-band authorization.

Credentials arrive in a data part `{"id": "<request id>", "credentials": {...}}` of a
follow-up message. They are taken out of the message before the SDK stores it in the
task's history (the part keeps its id, with `"credentials": "[withheld]"`), handed to the
run in memory, and never written to the task store, the session store or a log.

A run whose every waiting request is an out-of-band authorization does not return: it
waits until the host application says the flow is done (`complete`), a message arrives
on the task (`step_aside`: that message then drives the task), the task is canceled, or
the wait times out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Literal, cast

from a2a.server.agent_execution import RequestContext
from a2a.types import Message as A2AMessage
from a2a.types import TaskState
from google.protobuf import json_format, struct_pb2

from agentry.a2a._answers import CREDENTIALS_HINT, describe_authorization, is_authorization_request
from agentry.a2a._parts import data_of
from agentry.types import Content

__all__ = [
    "CREDENTIALS_STATE_KEY",
    "WITHHELD",
    "OutOfBandWaits",
    "WaitOutcome",
    "authorization_text",
    "take_credentials",
    "waits_out_of_band",
    "withhold_credentials",
]

CREDENTIALS_STATE_KEY = "agentry.a2a.credentials"
"""Key of `ServerCallContext.state` under which a request's withheld credentials travel."""

WITHHELD = "[withheld]"
"""What a stored message shows in place of the credentials it carried."""

WaitOutcome = Literal["completed", "message", "timeout"]
"""How a wait for an out-of-band authorization ended."""


def withhold_credentials(message: A2AMessage) -> dict[str, Any]:
    """Take the credentials out of `message`'s data parts, in place.

    Returns:
        The credentials as sent, by request id (`""` for credentials sent without one).
    """
    taken: dict[str, Any] = {}
    for part in message.parts:
        if part.WhichOneof("content") != "data":
            continue
        value = data_of(part)
        if not isinstance(value, dict) or "credentials" not in value:
            continue
        data = cast("dict[str, Any]", value)
        if data["credentials"] == WITHHELD:
            continue
        request_id = data.get("id")
        taken[request_id if isinstance(request_id, str) else ""] = data["credentials"]
        data["credentials"] = WITHHELD
        part.data.CopyFrom(json_format.ParseDict(data, struct_pb2.Value()))
    return taken


def take_credentials(context: RequestContext) -> dict[str, Any]:
    """The credentials of the request, withheld by the app's request context builder, or
    taken out of the message now (an executor hosted without `create_app`)."""
    state = context.call_context.state
    if CREDENTIALS_STATE_KEY in state:
        return cast("dict[str, Any]", state.pop(CREDENTIALS_STATE_KEY))
    task = context.current_task
    if context.message is None or task is None:
        return {}
    if task.status.state != TaskState.TASK_STATE_AUTH_REQUIRED:
        return {}
    return withhold_credentials(context.message)


def waits_out_of_band(requests: Sequence[Content]) -> bool:
    """Whether every request of `requests` is an out-of-band authorization."""
    return bool(requests) and all(
        is_authorization_request(r) and r.flow == "out_of_band" for r in requests
    )


def authorization_text(requests: Sequence[Content]) -> str:
    """The status text of a task waiting for the authorizations among `requests`."""
    lines = ["The agent needs authorization."]
    in_band = False
    for request in requests:
        if not is_authorization_request(request):
            continue
        if request.message:
            lines.append(
                f"The credentials given for request {request.id} were not accepted: "
                f"{request.message}."
            )
        if request.flow == "out_of_band":
            lines.append(
                f"Complete {describe_authorization(request)}; the task goes on once that is "
                "done (a message on this task checks again at once)."
            )
        else:
            in_band = True
            lines.append(f"Send {describe_authorization(request)}.")
    if in_band:
        lines.append(CREDENTIALS_HINT)
    return " ".join(lines)


class OutOfBandWaits:
    """Runs waiting for an out-of-band authorization, by task id and by the ids of the
    requests they wait for.

    Use it on the server's event loop.
    """

    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Future[WaitOutcome]] = {}
        self._tasks_by_request: dict[str, str] = {}

    async def wait(
        self, task_id: str, requests: Sequence[Content], timeout: float | None
    ) -> WaitOutcome:
        """Wait until the wait of `task_id` is ended, or `timeout` seconds pass."""
        waiting: asyncio.Future[WaitOutcome] = asyncio.get_running_loop().create_future()
        self._waiting[task_id] = waiting
        request_ids = [r.id for r in requests if r.id]
        self._tasks_by_request.update(dict.fromkeys(request_ids, task_id))
        try:
            return await asyncio.wait_for(waiting, timeout)
        except asyncio.TimeoutError:
            return "timeout"
        finally:
            if self._waiting.get(task_id) is waiting:
                del self._waiting[task_id]
            for request_id in request_ids:
                if self._tasks_by_request.get(request_id) == task_id:
                    del self._tasks_by_request[request_id]

    def task_of(self, request_id: str) -> str | None:
        """The id of the task whose run waits for request `request_id`, if one does."""
        return self._tasks_by_request.get(request_id)

    def end(self, task_id: str, outcome: WaitOutcome) -> bool:
        """End the wait of `task_id` with `outcome`; `False` when no run waits for it."""
        waiting = self._waiting.get(task_id)
        if waiting is None or waiting.done():
            return False
        waiting.set_result(outcome)
        return True
