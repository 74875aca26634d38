"""Recording one handler call as plain JSON, and replaying the record into a run.

This part is the same for every durable engine: an engine runs `StepRecorder.record` as
its step (the record is what the engine stores) and hands each record, fresh or read
back on recovery, to `StepRecorder.apply`. A record holds everything the call did: what
it sent, yielded and asked, the events it emitted, the shared-state keys it changed, the
executor's state after it, what it returned, and the error if it raised.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from agentry.durable._errors import DurableRunError, DurableStepError
from agentry.workflows import (
    Invocation,
    RunHooks,
    WorkflowContext,
    WorkflowErrorDetails,
    WorkflowEvent,
)

if TYPE_CHECKING:
    from agentry.workflows import Workflow

__all__ = ["StepRecord", "StepRecorder", "record_call"]

StepRecord = dict[str, Any]
"""A handler call's record: plain JSON."""


class _CallRecorder:
    """The `RunHooks` a handler talks to inside a step: it notes instead of acting."""

    streaming = False

    def __init__(self, invocation: Invocation, state: dict[str, Any]) -> None:
        self._invocation = invocation
        self.state = state
        self.effects: list[list[Any]] = []

    @property
    def run_id(self) -> str:
        return self._invocation.run_id

    @property
    def iteration(self) -> int:
        return self._invocation.iteration

    def emit(self, event: WorkflowEvent[Any]) -> None:
        self.effects.append(["event", event.type, event.data, event.executor_id])

    def yield_output(self, executor_id: str, output: object) -> None:
        self.effects.append(["output", output])

    def pass_on_intermediate_output(self, executor_id: str, output: object) -> None:
        self.effects.append(["intermediate", output])

    def request_info(
        self, executor_id: str, data: object, response_type: object, request_id: str | None
    ) -> str:
        request_id = request_id or uuid.uuid4().hex
        self.effects.append(["request", request_id, data, response_type])
        return request_id


class StepRecorder:
    """Records the handler calls of one run and replays the records into it.

    It also keeps each executor's saved state: an executor whose calls were replayed
    (not run) in this process gets its recorded state back before its next real call.

    Args:
        workflow: The run's workflow (its type registry encodes the records).
    """

    def __init__(self, workflow: Workflow) -> None:
        self._workflow = workflow
        self._registry = workflow.type_registry
        self._saved_states: dict[str, Any] = {}
        self._stale: set[str] = set()
        # Calls recorded in this process (by id of their invocation): their error, or what
        # they did, live (applied as is: decoding the record again would only copy it).
        self._ran_here: dict[int, Exception | _LiveCall] = {}

    async def record(self, invocation: Invocation, shared_state: dict[str, Any]) -> StepRecord:
        """Call the handler and return the record of what it did.

        The handler sees a copy of the shared state; nothing it does reaches the run until
        `apply`. If it raises, the record holds the error (and `apply` raises it).
        """
        registry, executor = self._registry, invocation.executor
        executor_id = executor.id
        if executor_id in self._stale:
            await executor.on_checkpoint_restore(registry.decode(self._saved_states[executor_id]))
            self._stale.discard(executor_id)
        before: dict[str, Any] = registry.encode(shared_state) if shared_state else {}
        recorder = _CallRecorder(invocation, registry.decode(before) if before else {})
        sent: list[tuple[object, str | None]] = []
        ctx: WorkflowContext[object, object] = WorkflowContext(
            recorder, executor_id, invocation.source, sent, index=invocation.index
        )
        try:
            result = await invocation.run(ctx)
        except Exception as error:
            self._ran_here[id(invocation)] = error
            details = WorkflowErrorDetails.from_exception(error, executor_id=executor_id)
            return {"error": registry.encode(details)}
        after: dict[str, Any] = registry.encode(recorder.state) if recorder.state else {}
        saved = registry.encode(await executor.on_checkpoint_save())
        self._saved_states[executor_id] = saved
        self._ran_here[id(invocation)] = _LiveCall(recorder.effects, sent, result, recorder.state)
        return {
            "effects": registry.encode(recorder.effects),
            "sent": registry.encode([[message, target] for message, target in sent]),
            "result": registry.encode(result),
            "state_set": {k: v for k, v in after.items() if before.get(k, _ABSENT) != v},
            "state_deleted": [k for k in before if k not in after],
            "executor_state": saved,
        }

    async def call_payload(
        self, invocation: Invocation, shared_state: dict[str, Any]
    ) -> dict[str, Any]:
        """What `invocation` needs to run in another process (see `record_call`): the
        message, its source, the shared state, and the executor's state, as JSON."""
        registry, executor = self._registry, invocation.executor
        if executor.id in self._stale:
            executor_state = self._saved_states[executor.id]
        else:
            executor_state = registry.encode(await executor.on_checkpoint_save())
        source = invocation.source
        return {
            "message": registry.encode(invocation.message),
            "source": source if isinstance(source, str) else list(source),
            "run_id": invocation.run_id,
            "iteration": invocation.iteration,
            "index": invocation.index,
            "shared_state": registry.encode(shared_state),
            "executor_state": executor_state,
        }

    def apply(
        self,
        record: StepRecord,
        invocation: Invocation,
        hooks: RunHooks,
        outbox: list[tuple[object, str | None]],
    ) -> Any:
        """Make the run see what the recorded call did; what the handler returned.

        Raises:
            Exception: The handler's error (the original one if it ran in this process,
                a `DurableStepError` when the record was read back).
        """
        registry = self._registry
        executor_id = invocation.executor_id
        live = self._ran_here.pop(id(invocation), None)
        if isinstance(live, Exception):
            raise live
        if "error" in record:
            details = cast(WorkflowErrorDetails, registry.decode(record["error"]))
            raise DurableStepError(
                details.message, error_type=details.error_type, executor_id=executor_id
            )
        for key in record["state_deleted"]:
            hooks.state.pop(key, None)
        if live is None:
            # A record read back: the executor in memory is behind it.
            self._saved_states[executor_id] = record["executor_state"]
            self._stale.add(executor_id)
            live = _LiveCall(
                cast("list[list[Any]]", registry.decode(record["effects"])),
                [(m, t) for m, t in cast("list[list[Any]]", registry.decode(record["sent"]))],
                registry.decode(record["result"]),
                {key: registry.decode(value) for key, value in record["state_set"].items()},
            )
        for key in record["state_set"]:
            hooks.state[key] = live.state[key]
        for effect in live.effects:
            _replay(effect, executor_id, hooks)
        outbox.extend(live.sent)
        return live.result


_ABSENT = object()


class _LiveCall(NamedTuple):
    """What a call did, as values: its effects, its sends, its result, and the shared
    state it left (of which the record's `state_set` keys changed)."""

    effects: list[list[Any]]
    sent: list[tuple[object, str | None]]
    result: object
    state: dict[str, Any]


def _replay(effect: list[Any], executor_id: str, hooks: RunHooks) -> None:
    kind = effect[0]
    if kind == "output":
        hooks.yield_output(executor_id, effect[1])
    elif kind == "intermediate":
        hooks.pass_on_intermediate_output(executor_id, effect[1])
    elif kind == "request":
        hooks.request_info(executor_id, effect[2], effect[3], effect[1])
    else:
        hooks.emit(WorkflowEvent(effect[1], effect[2], executor_id=effect[3] or executor_id))


async def record_call(workflow: Workflow, executor_id: str, payload: dict[str, Any]) -> StepRecord:
    """Run a handler call that `StepRecorder.call_payload` described, in this process (a
    fresh instance of the run's workflow); its record.

    Raises:
        DurableRunError: The workflow has no executor `executor_id`.
    """
    executor = workflow.executors.get(executor_id)
    if executor is None:
        raise DurableRunError(
            f"workflow {workflow.name!r} has no executor {executor_id!r} to run a call of"
        )
    registry = workflow.type_registry
    await executor.on_checkpoint_restore(registry.decode(payload["executor_state"]))
    source = payload["source"]
    invocation = Invocation(
        executor,
        registry.decode(payload["message"]),
        source if isinstance(source, str) else tuple(source),
        run_id=str(payload["run_id"]),
        iteration=int(payload["iteration"]),
        index=int(payload["index"]),
    )
    return await StepRecorder(workflow).record(invocation, registry.decode(payload["shared_state"]))
