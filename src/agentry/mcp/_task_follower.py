"""Following one remote MCP task from creation to its tool result.

The policy, in short:

- Polls honour the server's interval. A poll that times out (`REQUEST_TIMEOUT`) is
  tried again; `max_task_wait`, when set, bounds the whole wait.
- Once the task id is known, a lost connection is re-made once and the same request is
  sent again for the same id: asking about a task never starts it twice.
- A task the client gives up on while it may still run (waited too long, the connection
  broke twice, the server's answers make no sense, the client declined a question the
  task asked through the extension) is cancelled on the server. A task that ended on the
  server (failed, cancelled, completed with an error, or a 2025-11-25 task waiting for
  input this client cannot give) is not cancelled.
- `max_task_wait` is a deadline: the call fails when it passes, and a cancel still being
  sent then goes on in the background (bounded, logged, waited for by the tool's
  `close()`). Without a deadline, the call waits for the cancel to be sent.
- Cancelling the call here cancels the task too, unless the options say otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from agentry.errors import ToolExecutionError
from agentry.mcp._errors import describe, is_connection_loss, is_timeout
from agentry.mcp._results import tool_result_text
from agentry.mcp._task_wire import MalformedTaskResponse, parse_input_request
from agentry.observability import get_telemetry_observer

if TYPE_CHECKING:
    from mcp.client.session import ClientSession
    from mcp_types import CallToolResult

    from agentry.mcp._background import BackgroundTasks
    from agentry.mcp._task_options import MCPTaskOptions
    from agentry.mcp._task_wire import TaskState, TaskWire

__all__ = ["TaskFollower", "TaskHost"]

logger = logging.getLogger("agentry.mcp")

DEFAULT_POLL_INTERVAL = 1.0
"""Seconds between polls when the server suggests none."""

MIN_POLL_INTERVAL = 0.01
CANCEL_TIMEOUT = 10.0
"""The longest a best-effort `tasks/cancel` (with its reconnect) may take."""

T = TypeVar("T")

CANCELLING = "it is being cancelled on the server (in the background)"


class TaskHost(Protocol):
    """What a follower needs of the `MCPTool` that created the task."""

    name: str
    request_timeout: float | None

    @property
    def session(self) -> ClientSession: ...

    async def connect(self) -> None: ...

    async def reconnect(self, *, replacing: ClientSession | None = None) -> None: ...


class _Abandoned(Exception):
    """The client gives up on a task that may still be running: cancel it, then fail."""


class TaskFollower:
    """Follows one task of one tool call (see the module's docstring for the policy).

    Args:
        host: The tool whose connection the task lives on.
        wire: The protocol the task speaks.
        options: Waiting and cancelling options (None: the defaults).
        tool_name: The remote tool's name, for messages.
        background: Where cancels that outlive the call run (the tool's, which its
            `close()` waits for).
    """

    def __init__(
        self,
        host: TaskHost,
        wire: TaskWire,
        options: MCPTaskOptions | None,
        tool_name: str,
        *,
        background: BackgroundTasks,
    ) -> None:
        self.host = host
        self.wire = wire
        self.options = options
        self.tool_name = tool_name
        self.background = background

    async def follow(self, created: TaskState) -> CallToolResult:
        """Wait for the task and return its tool result.

        Raises:
            ToolExecutionError: The task failed, was cancelled, asked for input that
                could not be given, or the client gave up on it.
        """
        task_id = created.task_id
        what = f"task {task_id!r} of MCP tool {self.tool_name!r} on server {self.host.name!r}"
        logger.info(
            "MCP server %r runs tool %r as task %r", self.host.name, self.tool_name, task_id
        )
        options = self.options
        max_wait = options.max_wait_seconds if options is not None else None
        deadline = None if max_wait is None else asyncio.get_running_loop().time() + max_wait
        try:
            return await asyncio.wait_for(self._until_done(created), max_wait)
        except (TimeoutError, asyncio.TimeoutError):
            cancelled = await self._cancel(task_id, wait=0)
            raise ToolExecutionError(
                f"{what} did not finish within max_task_wait "
                f"({options.max_task_wait if options is not None else None}); "
                f"{cancelled}. Raise max_task_wait to wait longer"
            ) from None
        except _Abandoned as abandoned:
            cancelled = await self._cancel(task_id, wait=_remaining(deadline))
            raise ToolExecutionError(f"{what}: {abandoned}; {cancelled}") from abandoned.__cause__
        except asyncio.CancelledError:
            if options is None or options.cancel_remote_task_on_local_cancellation:
                # Cancelled again meanwhile: the cancel goes on in the background.
                with contextlib.suppress(asyncio.CancelledError):
                    await self._cancel(task_id, wait=None)
            raise

    async def _until_done(self, state: TaskState) -> CallToolResult:
        answered: set[str] = set()
        _record(state, None)
        if state.status == "completed" and self.wire.result_comes_with_state:
            state = await self._poll(state)  # the creation answer does not carry the result
        while True:
            if state.status == "completed":
                return await self._result(state)
            if state.status == "failed":
                reason = state.message or (state.error or {}).get("message") or "no reason given"
                raise ToolExecutionError(
                    f"MCP tool {self.tool_name!r} failed on server {self.host.name!r} "
                    f"(task {state.task_id!r}): {reason}"
                )
            if state.status == "cancelled":
                raise ToolExecutionError(
                    f"server {self.host.name!r} cancelled task {state.task_id!r} of MCP tool "
                    f"{self.tool_name!r}" + (f": {state.message}" if state.message else "")
                )
            if state.status == "input_required":
                await self._give_input(state, answered)
            await asyncio.sleep(_interval(state))
            last, state = state, await self._poll(state)
            _record(state, last)

    async def _poll(self, last: TaskState) -> TaskState:
        task_id = last.task_id
        while True:
            try:
                return await self._with_one_reconnect(
                    "tasks/get", lambda session: self.wire.get(session, task_id, self._timeout)
                )
            except MalformedTaskResponse as error:
                raise _Abandoned(f"the server answered tasks/get with {error}") from None
            except _Abandoned:
                raise
            except Exception as error:
                if not is_timeout(error) and not isinstance(error, TimeoutError):
                    raise _Abandoned(f"tasks/get failed: {describe(error)}") from error
                logger.debug("MCP task %r: tasks/get timed out; polling again", task_id)
                await asyncio.sleep(_interval(last))

    async def _result(self, state: TaskState) -> CallToolResult:
        try:
            result = await self._with_one_reconnect(
                "tasks/result", lambda session: self.wire.result(session, state, self._timeout)
            )
        except MalformedTaskResponse as error:
            raise ToolExecutionError(
                f"task {state.task_id!r} of MCP tool {self.tool_name!r} completed, but server "
                f"{self.host.name!r} answered with {error}"
            ) from None
        except _Abandoned:
            raise
        except Exception as error:
            raise ToolExecutionError(
                f"task {state.task_id!r} of MCP tool {self.tool_name!r} completed, but server "
                f"{self.host.name!r} did not give its result: {describe(error)}"
            ) from error
        if result.is_error:
            raise ToolExecutionError(
                f"MCP tool {self.tool_name!r} on server {self.host.name!r} failed: "
                f"{tool_result_text(result).removeprefix('Error: ')}"
            )
        return result

    async def _give_input(self, state: TaskState, answered: set[str]) -> None:
        """Answer the task's new questions through the client's own handlers (sampling
        under its guard; elicitation and roots as configured)."""
        if not self.wire.accepts_input:
            raise ToolExecutionError(
                f"task {state.task_id!r} of MCP tool {self.tool_name!r} on server "
                f"{self.host.name!r} needs input"
                + (f" ({state.message})" if state.message else "")
                + "; tasks of the 2025-11-25 protocol cannot take input from this client"
            )
        questions = {
            key: value for key, value in (state.input_requests or {}).items() if key not in answered
        }
        if not questions:
            return
        try:
            requests = {key: parse_input_request(raw) for key, raw in questions.items()}
        except MalformedTaskResponse as error:
            raise _Abandoned(f"the task asked {error}") from None
        try:
            responses = {key: await self._answer(key, request) for key, request in requests.items()}
            await self._with_one_reconnect(
                "tasks/update",
                lambda session: self.wire.update(session, state.task_id, responses, self._timeout),
            )
        except _Abandoned:
            raise
        except Exception as error:
            raise _Abandoned(f"answering the task's questions failed: {describe(error)}") from error
        answered.update(questions)

    async def _answer(self, key: str, request: Any) -> Mapping[str, Any]:
        from mcp.client.session import ClientRequestContext
        from mcp_types import ErrorData

        session = self.host.session
        meta = request.params.meta if request.params else None
        context = ClientRequestContext(session=session, request_id=key, meta=meta)
        response = await session.dispatch_input_request(context, request)
        if isinstance(response, ErrorData):
            raise _Abandoned(
                f"the task asked for {request.method} and the client declined: {response.message}"
            )
        return response.model_dump(by_alias=True, mode="json", exclude_none=True)

    async def _with_one_reconnect(
        self, what: str, send: Callable[[ClientSession], Awaitable[T]]
    ) -> T:
        """Send a request about the task; if the connection is lost, reconnect once and
        send it again (same task id, so nothing runs twice)."""
        session: ClientSession | None = None
        try:
            session = self.host.session
            return await send(session)
        except Exception as error:
            if not is_connection_loss(error):
                raise
            logger.info(
                "MCP server %r: connection lost during %s; reconnecting once", self.host.name, what
            )
        try:
            session = await self._session_replacing(session)
        except Exception as error:
            raise _Abandoned(
                f"the connection broke during {what} and reconnecting failed: {describe(error)}"
            ) from error
        try:
            return await send(session)
        except Exception as error:
            if is_connection_loss(error):
                raise _Abandoned(
                    f"the connection broke again during {what} after reconnecting"
                ) from error
            raise

    async def _session_replacing(self, broken: ClientSession | None) -> ClientSession:
        """A live session other than `broken`: one another call already re-made, or a new one."""
        if broken is None:
            await self.host.connect()
        else:
            await self.host.reconnect(replacing=broken)
        return self.host.session

    async def _cancel(self, task_id: str, *, wait: float | None) -> str:
        """Send a best-effort `tasks/cancel` from a task of its own (it survives this call
        being cancelled) and wait up to `wait` seconds for it (None: until it is sent);
        what happened, for the error message."""
        cancel = self.background.start(
            self._send_cancel(task_id), name=f"mcp:{self.host.name}:cancel:{task_id}"
        )
        if wait is None or wait > 0:
            await asyncio.wait({cancel}, timeout=wait)
        if cancel.done() and not cancel.cancelled():
            return cancel.result()
        return CANCELLING

    async def _send_cancel(self, task_id: str) -> str:
        """`tasks/cancel` within `CANCEL_TIMEOUT`: failures are logged, never raised."""
        try:
            await asyncio.wait_for(self._cancel_request(task_id), CANCEL_TIMEOUT)
        except Exception as error:
            logger.warning(
                "could not cancel task %r on MCP server %r: %s",
                task_id,
                self.host.name,
                describe(error),
            )
            return f"cancelling it on the server failed ({describe(error)})"
        return "the task was cancelled on the server"

    async def _cancel_request(self, task_id: str) -> None:
        await self.host.connect()
        await self._with_one_reconnect(
            "tasks/cancel", lambda session: self.wire.cancel(session, task_id, self._timeout)
        )
        logger.info("cancelled task %r on MCP server %r", task_id, self.host.name)

    @property
    def _timeout(self) -> float | None:
        return self.host.request_timeout


def _record(state: TaskState, last: TaskState | None) -> None:
    """Tell the telemetry observer of each change of the task's status."""
    if last is None or last.status != state.status:
        get_telemetry_observer().remote_task_status(state.task_id, state.status)


def _remaining(deadline: float | None) -> float | None:
    """Seconds left before `deadline` (a loop time), or None without one."""
    if deadline is None:
        return None
    return max(0.0, deadline - asyncio.get_running_loop().time())


def _interval(state: TaskState) -> float:
    if state.poll_interval is None or state.poll_interval <= 0:
        return DEFAULT_POLL_INTERVAL
    return max(MIN_POLL_INTERVAL, state.poll_interval)
