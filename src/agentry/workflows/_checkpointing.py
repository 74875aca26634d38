"""Saving a run to a checkpoint and restoring a run from one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from agentry.workflows._checkpoint import CheckpointStorage, WorkflowCheckpoint
from agentry.workflows._errors import WorkflowCheckpointException
from agentry.workflows._run_state import RunState

if TYPE_CHECKING:
    from agentry.workflows._workflow import Workflow

__all__ = ["checkpoint_of", "load_run", "restore_run", "save_checkpoint"]


async def checkpoint_of(workflow: Workflow, run: RunState) -> WorkflowCheckpoint:
    """A checkpoint of `run` (encoded, not saved)."""
    snapshot = await run.snapshot(workflow.executors)
    encoded = cast("dict[str, Any]", workflow.checkpoint_registry.encode(snapshot))
    return WorkflowCheckpoint(
        workflow_name=workflow.name,
        graph_signature=workflow.graph_signature,
        previous_checkpoint_id=run.last_checkpoint_id,
        run_id=run.run_id,
        iteration_count=run.iteration,
        messages=encoded["messages"],
        fan_in=encoded["fan_in"],
        state=encoded["state"],
        executor_states=encoded["executor_states"],
        pending_requests=encoded["pending_requests"],
        outputs=encoded["outputs"],
    )


async def save_checkpoint(workflow: Workflow, run: RunState, storage: CheckpointStorage) -> str:
    """Save a checkpoint of `run` to `storage`; its id."""
    checkpoint = await checkpoint_of(workflow, run)
    checkpoint_id = await storage.save(checkpoint)
    run.last_checkpoint_id = checkpoint_id
    return checkpoint_id


async def load_run(workflow: Workflow, storage: CheckpointStorage, checkpoint_id: str) -> RunState:
    """Load a checkpoint and rebuild the run it holds (restoring executor state).

    Raises:
        WorkflowCheckpointException: The checkpoint is missing, unreadable, from another
            workflow, or holds types this workflow does not know.
    """
    return await restore_run(workflow, await storage.load(checkpoint_id))


async def restore_run(workflow: Workflow, checkpoint: WorkflowCheckpoint) -> RunState:
    """Rebuild the run a checkpoint holds, restoring the executors' state."""
    where = f"checkpoint {checkpoint.checkpoint_id!r}"
    if checkpoint.workflow_name != workflow.name:
        raise WorkflowCheckpointException(
            f"{where} belongs to workflow {checkpoint.workflow_name!r}, not "
            f"{workflow.name!r}; restore it with the workflow that saved it"
        )
    if checkpoint.graph_signature != workflow.graph_signature:
        raise WorkflowCheckpointException(
            f"{where} was saved by a workflow named {workflow.name!r} whose graph differs "
            "from this one (other executors or edges); restore it with the graph that saved it"
        )
    registry = workflow.checkpoint_registry
    snapshot = registry.decode(
        {
            "run_id": checkpoint.run_id,
            "iteration": checkpoint.iteration_count,
            "messages": checkpoint.messages,
            "fan_in": checkpoint.fan_in,
            "state": checkpoint.state,
            "executor_states": checkpoint.executor_states,
            "pending_requests": checkpoint.pending_requests,
            "outputs": checkpoint.outputs,
        },
        path=where,
    )
    try:
        run = await RunState.restore(snapshot, workflow.executors)
    except (KeyError, TypeError, ValueError) as error:
        raise WorkflowCheckpointException(f"{where} is malformed: {error!r}") from error
    run.last_checkpoint_id = checkpoint.checkpoint_id
    return run
