"""A durable run's recorded steps read back as what an in-process run streams.

Followers read the steps a run has recorded (in the database, whichever worker wrote
them), so each completed step is reported once, a step under way only once it completes,
and nothing is written for a follower: following costs the run nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from agentry.types import AgentResponseUpdate, ChatResponse, Content
from agentry.workflows import WorkflowErrorDetails, WorkflowEvent

if TYPE_CHECKING:
    from agentry.workflows import CheckpointTypeRegistry, Workflow

__all__ = [
    "APPROVALS_STEP",
    "HANDLER_STEP_PREFIX",
    "MODEL_STEP",
    "TOOL_STEP_PREFIX",
    "agent_updates",
    "failure_details",
    "workflow_events",
]

HANDLER_STEP_PREFIX = "agentry.handler:"
"""The name of a handler call's step, before the executor's id."""
MODEL_STEP = "agentry.model"
"""The name of a model call's step."""
TOOL_STEP_PREFIX = "agentry.tool:"
"""The name of a tool call's step, before the tool's name."""
APPROVALS_STEP = "agentry.approvals"
"""The name of the step that records the approval requests an agent run waits on."""


def workflow_events(step_name: str, record: object, workflow: Workflow) -> list[WorkflowEvent[Any]]:
    """The events of one recorded handler call (none for a step of another kind):
    `executor_invoked` (without the message, which is not stored), what the handler
    emitted, yielded and asked, then `executor_completed` or `executor_failed`."""
    if not step_name.startswith(HANDLER_STEP_PREFIX) or not isinstance(record, dict):
        return []
    executor_id = step_name.removeprefix(HANDLER_STEP_PREFIX)
    fields = cast("dict[str, Any]", record)
    registry = workflow.type_registry
    events: list[WorkflowEvent[Any]] = [WorkflowEvent.executor_invoked(executor_id)]
    if "error" in fields:
        details = cast(WorkflowErrorDetails, registry.decode(fields["error"]))
        events.append(WorkflowEvent.executor_failed(executor_id, details))
        return events
    for effect in cast("list[list[Any]]", registry.decode(fields["effects"])):
        event = _event_of(effect, executor_id, workflow)
        if event is not None:
            events.append(event)
    events.append(WorkflowEvent.executor_completed(executor_id))
    return events


def _event_of(effect: list[Any], executor_id: str, workflow: Workflow) -> WorkflowEvent[Any] | None:
    kind = effect[0]
    if kind == "request":
        return WorkflowEvent.request_info(
            request_id=effect[1],
            source_executor_id=executor_id,
            data=effect[2],
            response_type=effect[3],
        )
    if kind == "event":
        return WorkflowEvent(effect[1], effect[2], executor_id=effect[3] or executor_id)
    shown = workflow.output_kind_of(executor_id)
    if shown == "output" and kind == "output":
        return WorkflowEvent.output(executor_id, effect[1])
    if shown is not None:
        return WorkflowEvent.intermediate(executor_id, effect[1])
    return None


def agent_updates(
    step_name: str, record: object, registry: CheckpointTypeRegistry, agent_name: str
) -> list[AgentResponseUpdate]:
    """The updates of one recorded model call (its messages), tool call (its result), or
    wait for approvals (the requests); none for a step of another kind."""
    if step_name == APPROVALS_STEP:
        requests = cast("list[Content]", registry.decode(record))
        return [AgentResponseUpdate(contents=requests, role="assistant", author_name=agent_name)]
    if not isinstance(record, dict):
        return []
    fields = cast("dict[str, Any]", record)
    if step_name == MODEL_STEP:
        response = cast(ChatResponse, registry.decode(fields))
        return [
            AgentResponseUpdate(
                contents=message.contents,
                role=message.role,
                author_name=message.author_name or agent_name,
                message_id=message.message_id,
                response_id=response.response_id,
            )
            for message in response.messages
        ]
    if step_name.startswith(TOOL_STEP_PREFIX):
        if "error" in fields:
            error = cast("dict[str, Any]", fields["error"])
            result: object = f"Error: {error['type']}: {error['message']}"
        else:
            result = registry.decode(fields["result"])
        call_id = str(fields.get("call_id") or "")
        return [
            AgentResponseUpdate(
                contents=[Content.from_function_result(call_id=call_id, result=result)],
                role="tool",
                author_name=agent_name,
            )
        ]
    return []


def failure_details(error: Exception) -> WorkflowErrorDetails:
    """The details of a run's failure, for its `failed` event."""
    return WorkflowErrorDetails(
        error_type=str(getattr(error, "error_type", type(error).__name__)),
        message=str(error),
        executor_id=getattr(error, "executor_id", None),
    )
