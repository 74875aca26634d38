"""Agent runs served as MCP tasks, through the tasks extension
(`io.modelcontextprotocol/tasks`): the call answers at once with a task, and the client
polls `tasks/get` for the answer or stops the run with `tasks/cancel`. Over HTTP these
requests must name their task in the `Mcp-Name` header as well as in `taskId`."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import OrderedDict
from collections.abc import Coroutine
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from mcp_types import CancelTaskRequestParams, GetTaskRequestParams, RequestParams

from agentry.mcp._task_wire import TASKS_EXTENSION

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server
    from mcp_types import CallToolResult

__all__ = ["ServedTasks"]


class _UpdateParams(RequestParams):
    task_id: str
    input_responses: dict[str, Any] | None = None


class _ServedTask:
    def __init__(self, worker: asyncio.Task[CallToolResult]) -> None:
        self.task_id = uuid.uuid4().hex
        self.worker = worker
        self.created_at = _now()
        self.finished_at: float | None = None
        worker.add_done_callback(self._finished)

    def _finished(self, worker: asyncio.Task[CallToolResult]) -> None:
        self.finished_at = time.monotonic()
        if not worker.cancelled():
            worker.exception()  # retrieved here: a failure is reported through tasks/get

    def state(self, *, ttl_seconds: float, poll_interval_ms: int) -> dict[str, Any]:
        state: dict[str, Any] = {
            "taskId": self.task_id,
            "status": "working",
            "createdAt": self.created_at,
            "lastUpdatedAt": _now(),
            "ttlMs": round(ttl_seconds * 1000),
            "pollIntervalMs": poll_interval_ms,
        }
        worker = self.worker
        if not worker.done():
            return state
        if worker.cancelled():
            state["status"] = "cancelled"
            return state
        error = worker.exception()
        if error is not None:
            state["status"] = "failed"
            state["statusMessage"] = f"{type(error).__name__}: {error}"
            state["error"] = {"code": -32603, "message": state["statusMessage"]}
            return state
        state["status"] = "completed"
        state["result"] = worker.result().model_dump(by_alias=True, mode="json", exclude_none=True)
        return state


class ServedTasks:
    """The tasks an `AgentMCPServer` is running or has finished, by id.

    Finished tasks are kept `ttl_seconds` for the client to collect; at most `max_tasks`
    are kept (the oldest finished go first; when all are running, new calls are refused).

    Args:
        ttl_seconds: How long a finished task's answer is kept.
        max_tasks: The most tasks kept at once.
        poll_interval_ms: The polling interval suggested to clients.
    """

    def __init__(
        self, *, ttl_seconds: float = 3600, max_tasks: int = 1000, poll_interval_ms: int = 500
    ) -> None:
        self.ttl_seconds = ttl_seconds
        self.max_tasks = max_tasks
        self.poll_interval_ms = poll_interval_ms
        self._tasks: OrderedDict[str, _ServedTask] = OrderedDict()

    def __len__(self) -> int:
        """The tasks kept (running, or finished and not yet expired)."""
        return len(self._tasks)

    @property
    def running(self) -> int:
        """How many tasks are still running."""
        return sum(1 for task in self._tasks.values() if not task.worker.done())

    def install(self, server: Server[Any]) -> None:
        """Advertise the extension and answer its methods on `server`."""
        server.extensions[TASKS_EXTENSION] = {}
        server.add_request_handler("tasks/get", GetTaskRequestParams, self._get)
        server.add_request_handler("tasks/cancel", CancelTaskRequestParams, self._cancel)
        server.add_request_handler("tasks/update", _UpdateParams, self._update)

    @staticmethod
    def offered_by(context: ServerRequestContext[Any]) -> bool:
        """Whether the client of this request takes tasks: it declared the extension, on
        a 2026 connection (a 2025 wire has no place for an extension's result)."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if context.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return False
        capabilities = context.session.client_capabilities
        extensions = capabilities.extensions if capabilities is not None else None
        return bool(extensions) and TASKS_EXTENSION in (extensions or {})

    def start(self, work: Coroutine[Any, Any, CallToolResult]) -> dict[str, Any]:
        """Run `work` as a task; the `tools/call` answer that names it.

        Raises:
            mcp.MCPError: Too many tasks are running.
        """
        self._forget_expired()
        if len(self._tasks) >= self.max_tasks:
            work.close()
            raise _error(-32603, f"the server is running {self.max_tasks} tasks; try later")
        task = _ServedTask(asyncio.get_running_loop().create_task(work))
        self._tasks[task.task_id] = task
        return {**self._state(task), "resultType": "task"}

    def close(self) -> None:
        """Stop every running task (the server is shutting down)."""
        for task in self._tasks.values():
            task.worker.cancel()
        self._tasks.clear()

    def _state(self, task: _ServedTask) -> dict[str, Any]:
        return task.state(ttl_seconds=self.ttl_seconds, poll_interval_ms=self.poll_interval_ms)

    async def _get(
        self, context: ServerRequestContext[Any], params: GetTaskRequestParams
    ) -> dict[str, Any]:
        return self._state(self._known(context, params.task_id))

    async def _cancel(
        self, context: ServerRequestContext[Any], params: CancelTaskRequestParams
    ) -> dict[str, Any]:
        self._known(context, params.task_id).worker.cancel()
        return {}

    async def _update(
        self, context: ServerRequestContext[Any], params: _UpdateParams
    ) -> dict[str, Any]:
        self._known(context, params.task_id)
        return {}  # agent runs ask no questions; answers to none are ignored, as allowed

    def _known(self, context: ServerRequestContext[Any], task_id: str) -> _ServedTask:
        from mcp.server.mcpserver.server import require_client_extension

        require_client_extension(context, TASKS_EXTENSION)
        _check_routing_header(context, task_id)
        self._forget_expired()
        task = self._tasks.get(task_id)
        if task is None:
            raise _error(-32602, f"Failed to retrieve task: no task {task_id!r} (or it expired)")
        return task

    def _forget_expired(self) -> None:
        now = time.monotonic()
        expired = [
            task_id
            for task_id, task in self._tasks.items()
            if task.finished_at is not None and now - task.finished_at > self.ttl_seconds
        ]
        for task_id in expired:
            del self._tasks[task_id]
        if len(self._tasks) >= self.max_tasks:
            finished = [i for i, task in self._tasks.items() if task.finished_at is not None]
            for task_id in finished[: len(self._tasks) - self.max_tasks + 1]:
                del self._tasks[task_id]


def _check_routing_header(context: ServerRequestContext[Any], task_id: str) -> None:
    """Over HTTP, a request about a task names it in the `Mcp-Name` header too (gateways
    route by it); one whose header names another task, or none, is refused."""
    from mcp.shared.inbound import MCP_NAME_HEADER, decode_header_value
    from mcp_types import HEADER_MISMATCH

    headers: Any = getattr(context.request, "headers", None)
    if headers is None:
        return  # stdio and in-process connections have no headers
    if decode_header_value(headers.get(MCP_NAME_HEADER)) != task_id:
        raise _error(
            HEADER_MISMATCH,
            f"the Mcp-Name header does not match the request's taskId ({task_id!r}); a "
            f"{context.method} request must carry its task's id in both",
        )


def _error(code: int, message: str) -> Exception:
    from mcp import MCPError

    return MCPError(code=code, message=message)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()
