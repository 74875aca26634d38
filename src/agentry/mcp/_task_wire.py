"""The two wire forms of MCP tasks.

- The 2025-11-25 design: a tool declares `execution.taskSupport`; the client adds `task`
  to its `tools/call`, polls `tasks/get`, then fetches the tool result with `tasks/result`.
- The tasks extension (`io.modelcontextprotocol/tasks`, on 2026 protocol connections):
  the client offers the extension on every request and the server decides; `tools/call`
  may answer `resultType: "task"`, `tasks/get` carries the result inline, and
  `tasks/update` answers the questions a task asks while it runs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types import (
    CallToolResult,
    CancelTaskRequest,
    CancelTaskRequestParams,
    CreateTaskResult,
    GetTaskPayloadRequest,
    GetTaskPayloadRequestParams,
    GetTaskRequest,
    GetTaskRequestParams,
    GetTaskResult,
    InputRequest,
    Request,
    RequestParams,
    Result,
)
from mcp_types.methods import validate_server_result
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

from agentry.mcp._errors import first_problem

if TYPE_CHECKING:
    from mcp.client.session import ClientSession
    from mcp.shared.dispatcher import CallOptions
    from mcp_types import Task

__all__ = [
    "TASKS_EXTENSION",
    "ExtensionTaskWire",
    "LegacyTaskWire",
    "MalformedTaskResponse",
    "TaskCreated",
    "TaskState",
    "TaskWire",
    "TasksClientExtension",
    "parse_input_request",
]

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]


class MalformedTaskResponse(Exception):
    """A task request was answered, but not in a shape the protocol describes."""


@dataclass(frozen=True)
class TaskState:
    """What the client knows of a remote task after one answer.

    Attributes:
        task_id: The server's id for the task.
        status: Where the task stands.
        message: The server's words on the status, if any.
        poll_interval: The server's suggested seconds between polls, if any.
        result: The tool result, carried inline by the extension once completed.
        error: The JSON-RPC error of a failed task (extension).
        input_requests: What the task asks of the client, by key (extension).
    """

    task_id: str
    status: TaskStatus
    message: str | None = None
    poll_interval: float | None = None
    result: Mapping[str, Any] | None = None
    error: Mapping[str, Any] | None = None
    input_requests: Mapping[str, Any] | None = None

    @property
    def is_terminal(self) -> bool:
        """Whether the task has ended (completed, failed or cancelled)."""
        return self.status in ("completed", "failed", "cancelled")


class TaskCreated(Exception):
    """Raised out of the SDK's `tools/call` when the server answered with a task."""

    def __init__(self, state: TaskState) -> None:
        super().__init__(f"the server runs the call as task {state.task_id!r}")
        self.state = state


class TaskWire(ABC):
    """Polling, fetching and cancelling one task, in one protocol's words."""

    accepts_input: bool = False
    """Whether a task's questions can be answered (`tasks/update`)."""

    result_comes_with_state: bool = False
    """Whether a completed task's state carries its result (else `tasks/result` fetches it)."""

    @abstractmethod
    async def get(self, session: ClientSession, task_id: str, timeout: float | None) -> TaskState:
        """The task's current state (`tasks/get`).

        Raises:
            MalformedTaskResponse: The answer is not a task.
        """

    @abstractmethod
    async def result(
        self, session: ClientSession, state: TaskState, timeout: float | None
    ) -> CallToolResult:
        """The tool result of a completed task.

        Raises:
            MalformedTaskResponse: The answer is not a tool result.
        """

    @abstractmethod
    async def cancel(self, session: ClientSession, task_id: str, timeout: float | None) -> None:
        """Ask the server to cancel the task (`tasks/cancel`)."""

    async def update(
        self,
        session: ClientSession,
        task_id: str,
        responses: Mapping[str, Any],
        timeout: float | None,
    ) -> None:
        """Answer the task's questions (`tasks/update`)."""
        raise NotImplementedError(f"{type(self).__name__} cannot answer a task's questions")


class _Acknowledgement(BaseModel):
    """Any answer: acknowledgements are read for success only."""


_AnswerT = TypeVar("_AnswerT", GetTaskResult, "_ExtensionTask")


async def _task_state(
    session: ClientSession,
    request: GetTaskRequest,
    answer_type: type[_AnswerT],
    timeout: float | None,
) -> _AnswerT:
    """Send a `tasks/get` and check that the answer is the state of the task asked about.

    Raises:
        MalformedTaskResponse: The answer is not a task, or is another task's.
    """
    try:
        answer = await session.send_request(request, answer_type, timeout)
    except ValidationError as error:
        raise MalformedTaskResponse(f"not a task ({first_problem(error)})") from None
    task_id = request.params.task_id
    if answer.task_id != task_id:
        raise MalformedTaskResponse(f"the state of task {answer.task_id!r}, not {task_id!r}")
    return answer


# region the 2025-11-25 design


class LegacyTaskWire(TaskWire):
    """Tasks of the 2025-11-25 protocol: `task` on `tools/call`, then `tasks/get` and
    `tasks/result`."""

    async def submit(
        self,
        session: ClientSession,
        name: str,
        arguments: Mapping[str, Any],
        *,
        meta: Mapping[str, Any] | None,
        ttl_milliseconds: int | None,
        timeout: float | None,
    ) -> TaskState | CallToolResult:
        """Send the task-augmented `tools/call`: the task it created, or the plain result of
        a server that ignored the augmentation.

        Raises:
            MalformedTaskResponse: The answer is neither a task nor a tool result.
            mcp.MCPError: The server refused the request (or the connection broke).
        """
        params: dict[str, Any] = {
            "name": name,
            "arguments": dict(arguments),
            "task": {} if ttl_milliseconds is None else {"ttl": ttl_milliseconds},
        }
        if meta:
            params["_meta"] = dict(meta)
        raw = await _send_unvalidated(session, "tools/call", params, timeout)
        if "task" in raw:
            try:
                created = CreateTaskResult.model_validate(raw, by_name=False)
            except ValidationError as error:
                raise MalformedTaskResponse(
                    f"a task that is not one ({first_problem(error)})"
                ) from None
            return _legacy_state(created.task)
        try:
            validate_server_result("tools/call", "2025-11-25", raw)
            return CallToolResult.model_validate(raw, by_name=False)
        except ValidationError as error:
            raise MalformedTaskResponse(
                f"neither a task nor a tool result ({first_problem(error)})"
            ) from None

    async def get(self, session: ClientSession, task_id: str, timeout: float | None) -> TaskState:
        request = GetTaskRequest(params=GetTaskRequestParams(task_id=task_id))
        return _legacy_state(await _task_state(session, request, GetTaskResult, timeout))

    async def result(
        self, session: ClientSession, state: TaskState, timeout: float | None
    ) -> CallToolResult:
        request = GetTaskPayloadRequest(params=GetTaskPayloadRequestParams(task_id=state.task_id))
        try:
            return await session.send_request(request, CallToolResult, timeout)
        except ValidationError as error:
            raise MalformedTaskResponse(f"not a tool result ({first_problem(error)})") from None

    async def cancel(self, session: ClientSession, task_id: str, timeout: float | None) -> None:
        request = CancelTaskRequest(params=CancelTaskRequestParams(task_id=task_id))
        await session.send_request(request, _Acknowledgement, timeout)


def _legacy_state(task: Task) -> TaskState:
    return TaskState(
        task_id=task.task_id,
        status=task.status,
        message=task.status_message,
        poll_interval=_seconds(task.poll_interval),
    )


async def _send_unvalidated(
    session: ClientSession, method: str, params: dict[str, Any], timeout: float | None
) -> dict[str, Any]:
    """Send a request stamped as the session stamps its own, and return the raw answer.

    On 2025-11-25 connections the SDK checks every `tools/call` answer against
    `CallToolResult`, which a `CreateTaskResult` is not; the task-augmented call therefore
    goes straight to the session's dispatcher and its answer is validated here.
    """
    # The SDK offers no public way to send a request without validating its answer, so
    # this uses the session's own stamping and dispatcher.
    data: dict[str, Any] = {"method": method, "params": params}
    options: CallOptions = {}
    session._stamp(data, options)  # pyright: ignore[reportPrivateUsage]
    if timeout is not None:
        options["timeout"] = timeout
    dispatcher = session._dispatcher  # pyright: ignore[reportPrivateUsage]
    return await dispatcher.send_raw_request(method, data["params"], options)


# endregion

# region the tasks extension


class _WireModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class ExtensionTaskHandle(Result):
    """A `tools/call` answer of `resultType: "task"`: the task the server created."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: TaskStatus
    status_message: str | None = None
    poll_interval_ms: int | None = None


class _ExtensionTask(_WireModel):
    """A `tasks/get` answer: the task, with its result, error or questions inline."""

    task_id: str
    status: TaskStatus
    status_message: str | None = None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = None


class _TaskUpdateParams(RequestParams):
    task_id: str
    input_responses: dict[str, Any]


class _ExtensionGetTask(GetTaskRequest):
    name_param = "taskId"  # routes the request to the server holding the task (Mcp-Name)


class _ExtensionCancelTask(CancelTaskRequest):
    name_param = "taskId"


class _ExtensionUpdateTask(Request[_TaskUpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: _TaskUpdateParams
    name_param = "taskId"


_INPUT_REQUEST: TypeAdapter[InputRequest] = TypeAdapter(InputRequest)


def parse_input_request(raw: Any) -> InputRequest:
    """One of a task's questions as the SDK's typed request.

    Raises:
        MalformedTaskResponse: It is not a request the client knows.
    """
    try:
        return _INPUT_REQUEST.validate_python(raw, by_name=False)
    except ValidationError as error:
        raise MalformedTaskResponse(
            f"a question the client cannot read ({first_problem(error)})"
        ) from None


class ExtensionTaskWire(TaskWire):
    """Tasks of the `io.modelcontextprotocol/tasks` extension."""

    accepts_input = True
    result_comes_with_state = True

    async def get(self, session: ClientSession, task_id: str, timeout: float | None) -> TaskState:
        request = _ExtensionGetTask(params=GetTaskRequestParams(task_id=task_id))
        answer = await _task_state(session, request, _ExtensionTask, timeout)
        return TaskState(
            task_id=answer.task_id,
            status=answer.status,
            message=answer.status_message,
            poll_interval=_seconds(answer.poll_interval_ms),
            result=answer.result,
            error=answer.error,
            input_requests=answer.input_requests,
        )

    async def result(
        self, session: ClientSession, state: TaskState, timeout: float | None
    ) -> CallToolResult:
        if state.result is None:
            raise MalformedTaskResponse("a completed task without its result")
        try:
            return CallToolResult.model_validate(state.result, by_name=False)
        except ValidationError as error:
            raise MalformedTaskResponse(
                f"a result that is not a tool result ({first_problem(error)})"
            ) from None

    async def update(
        self,
        session: ClientSession,
        task_id: str,
        responses: Mapping[str, Any],
        timeout: float | None,
    ) -> None:
        request = _ExtensionUpdateTask(
            params=_TaskUpdateParams(task_id=task_id, input_responses=dict(responses))
        )
        await session.send_request(request, _Acknowledgement, timeout)

    async def cancel(self, session: ClientSession, task_id: str, timeout: float | None) -> None:
        request = _ExtensionCancelTask(params=CancelTaskRequestParams(task_id=task_id))
        await session.send_request(request, _Acknowledgement, timeout)


async def _hand_over(handle: ExtensionTaskHandle, context: ClaimContext) -> CallToolResult:
    """The SDK's resolver for task answers: hands the task to the `MCPTool` that made the
    call, which follows it with its own reconnect and cancel policy."""
    raise TaskCreated(
        TaskState(
            task_id=handle.task_id,
            status=handle.status,
            message=handle.status_message,
            poll_interval=_seconds(handle.poll_interval_ms),
        )
    )


class TasksClientExtension(ClientExtension):
    """Offers the tasks extension and claims `resultType: "task"` answers to `tools/call`."""

    identifier = TASKS_EXTENSION

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (ResultClaim(result_type="task", model=ExtensionTaskHandle, resolve=_hand_over),)


# endregion


def _seconds(milliseconds: int | None) -> float | None:
    return None if milliseconds is None else milliseconds / 1000
