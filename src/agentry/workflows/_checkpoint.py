"""`WorkflowCheckpoint`, the `CheckpointStorage` interface, and the in-memory storage.

A checkpoint is the state of a run at a superstep boundary, as plain JSON: the messages
waiting for the next superstep, what fan-in edges hold, executor and shared state, the
requests waiting for answers, and the Workflow Output so far. Storages keep and return
checkpoints; they never decode the values inside (the workflow does, through its type
registry, when it restores).
"""

from __future__ import annotations

import logging
import uuid
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, ClassVar

from typing_extensions import Required, TypedDict

from agentry.types import SerializationMixin, check_fields, stored_fields
from agentry.workflows._errors import WorkflowCheckpointException

__all__ = [
    "CHECKPOINT_FORMAT",
    "CHECKPOINT_VERSION",
    "CheckpointStorage",
    "InMemoryCheckpointStorage",
    "WorkflowCheckpoint",
]

logger = logging.getLogger("agentry.workflows")

CHECKPOINT_FORMAT = "agentry.workflow_checkpoint"
CHECKPOINT_VERSION = 1


@stored_fields
class _StoredCheckpoint(TypedDict, total=False):
    format: Required[str]
    version: Required[int]
    checkpoint_id: Required[str]
    previous_checkpoint_id: str | None
    workflow_name: Required[str]
    graph_signature: Required[str]
    run_id: str
    timestamp: Required[str]
    iteration_count: Required[int]
    messages: list[Any]
    fan_in: dict[str, Any]
    state: dict[str, Any]
    executor_states: dict[str, Any]
    pending_requests: list[Any]
    outputs: list[Any]
    metadata: dict[str, Any]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _new_id() -> str:
    return uuid.uuid4().hex


@dataclass
class WorkflowCheckpoint(SerializationMixin):
    """The state of a workflow run at the end of a superstep, as plain JSON data.

    Attributes:
        workflow_name: The name of the workflow that saved it.
        graph_signature: A hash of the workflow's graph; restoring into another graph fails.
        checkpoint_id: Its id.
        previous_checkpoint_id: The checkpoint saved before it in the same run.
        run_id: The run it belongs to.
        timestamp: When it was saved (ISO 8601, UTC).
        iteration_count: Supersteps completed so far.
        messages: Messages waiting for the next superstep (encoded).
        fan_in: What each fan-in edge group holds (encoded).
        state: The shared state (encoded).
        executor_states: What each executor's `on_checkpoint_save` returned (encoded).
        pending_requests: Requests waiting for answers (encoded).
        outputs: Workflow Output yielded so far (encoded).
        metadata: Free-form data about the checkpoint.
        version: The format version.
    """

    serialization_error: ClassVar[type[Exception]] = WorkflowCheckpointException
    serialization_kind: ClassVar[str | None] = "checkpoint"

    workflow_name: str
    graph_signature: str
    checkpoint_id: str = field(default_factory=_new_id)
    previous_checkpoint_id: str | None = None
    run_id: str = ""
    timestamp: str = field(default_factory=_now)
    iteration_count: int = 0
    messages: list[Any] = field(default_factory=list[Any])
    fan_in: dict[str, Any] = field(default_factory=dict[str, Any])
    state: dict[str, Any] = field(default_factory=dict[str, Any])
    executor_states: dict[str, Any] = field(default_factory=dict[str, Any])
    pending_requests: list[Any] = field(default_factory=list[Any])
    outputs: list[Any] = field(default_factory=list[Any])
    metadata: dict[str, Any] = field(default_factory=dict[str, Any])
    version: int = CHECKPOINT_VERSION

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "format": CHECKPOINT_FORMAT,
            "version": self.version,
            "checkpoint_id": self.checkpoint_id,
            "previous_checkpoint_id": self.previous_checkpoint_id,
            "workflow_name": self.workflow_name,
            "graph_signature": self.graph_signature,
            "run_id": self.run_id,
            "timestamp": self.timestamp,
            "iteration_count": self.iteration_count,
            "messages": self.messages,
            "fan_in": self.fan_in,
            "state": self.state,
            "executor_states": self.executor_states,
            "pending_requests": self.pending_requests,
            "outputs": self.outputs,
            "metadata": self.metadata,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> WorkflowCheckpoint:
        """Read a checkpoint from :meth:`to_dict` output.

        Raises:
            WorkflowCheckpointException: The data is not a checkpoint of this format, or is
                from a newer agentry.
        """
        if not isinstance(data, Mapping) or data.get("format") != CHECKPOINT_FORMAT:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise WorkflowCheckpointException(
                "this is not an agentry workflow checkpoint (its 'format' is not "
                f"{CHECKPOINT_FORMAT!r})"
            )
        version = data.get("version")
        if isinstance(version, int) and version > CHECKPOINT_VERSION:
            raise WorkflowCheckpointException(
                f"checkpoint format version {version!r} is newer than this agentry reads "
                f"(version {CHECKPOINT_VERSION}); upgrade agentry to restore it"
            )
        fields = check_fields(
            _StoredCheckpoint, data, kind="checkpoint", error=WorkflowCheckpointException
        )
        del fields["format"]
        if fields["iteration_count"] < 0:
            raise WorkflowCheckpointException(
                "the checkpoint is malformed: field 'iteration_count' should be a count of "
                f"supersteps (0 or more), not {fields['iteration_count']}"
            )
        return cls(**fields)


class CheckpointStorage(ABC):
    """Where checkpoints are kept. Subclasses implement `save`, `load`,
    `list_checkpoint_ids` and `delete`.

    Example:
        >>> storage = InMemoryCheckpointStorage()
    """

    @abstractmethod
    async def save(self, checkpoint: WorkflowCheckpoint) -> str:
        """Store `checkpoint` (replacing one of the same id); return its id. Atomic."""

    @abstractmethod
    async def load(self, checkpoint_id: str) -> WorkflowCheckpoint:
        """The checkpoint of this id.

        Raises:
            WorkflowCheckpointException: There is none, or it is unreadable.
        """

    @abstractmethod
    async def list_checkpoint_ids(self, *, workflow_name: str) -> list[str]:
        """The ids of a workflow's checkpoints, oldest first."""

    @abstractmethod
    async def delete(self, checkpoint_id: str) -> bool:
        """Delete a checkpoint; whether it existed."""

    async def list_checkpoints(self, *, workflow_name: str) -> list[WorkflowCheckpoint]:
        """A workflow's readable checkpoints, oldest first (unreadable ones are logged and
        skipped, so one damaged checkpoint does not hide the others)."""
        checkpoints: list[WorkflowCheckpoint] = []
        for checkpoint_id in await self.list_checkpoint_ids(workflow_name=workflow_name):
            try:
                checkpoints.append(await self.load(checkpoint_id))
            except WorkflowCheckpointException as error:
                logger.warning("skipping unreadable checkpoint %s: %s", checkpoint_id, error)
        return checkpoints

    async def get_latest(self, *, workflow_name: str) -> WorkflowCheckpoint | None:
        """The newest readable checkpoint of a workflow, or None."""
        for checkpoint_id in reversed(await self.list_checkpoint_ids(workflow_name=workflow_name)):
            try:
                return await self.load(checkpoint_id)
            except WorkflowCheckpointException as error:
                logger.warning("skipping unreadable checkpoint %s: %s", checkpoint_id, error)
        return None


class InMemoryCheckpointStorage(CheckpointStorage):
    """Checkpoints in a dict of JSON documents, for tests and short-lived processes.

    Example:
        >>> storage = InMemoryCheckpointStorage()
    """

    def __init__(self) -> None:
        self.documents: dict[str, tuple[str, str]] = {}
        """The stored JSON documents by checkpoint id, each with its workflow name."""

    async def save(self, checkpoint: WorkflowCheckpoint) -> str:
        text = checkpoint.to_json()
        self.documents.pop(checkpoint.checkpoint_id, None)
        self.documents[checkpoint.checkpoint_id] = (checkpoint.workflow_name, text)
        return checkpoint.checkpoint_id

    async def load(self, checkpoint_id: str) -> WorkflowCheckpoint:
        document = self.documents.get(checkpoint_id)
        if document is None:
            raise WorkflowCheckpointException(f"no checkpoint with id {checkpoint_id!r}")
        return read_stored_checkpoint(checkpoint_id, document[1])

    async def list_checkpoint_ids(self, *, workflow_name: str) -> list[str]:
        return [cid for cid, (name, _) in self.documents.items() if name == workflow_name]

    async def delete(self, checkpoint_id: str) -> bool:
        return self.documents.pop(checkpoint_id, None) is not None


def read_stored_checkpoint(checkpoint_id: str, text: str | bytes) -> WorkflowCheckpoint:
    """Parse a stored document, naming the checkpoint in any error."""
    try:
        checkpoint = WorkflowCheckpoint.from_json(text)
    except WorkflowCheckpointException as error:
        raise WorkflowCheckpointException(
            f"checkpoint {checkpoint_id!r} cannot be read: {error}"
        ) from None
    if checkpoint.checkpoint_id != checkpoint_id:
        raise WorkflowCheckpointException(
            f"checkpoint {checkpoint_id!r} holds the data of checkpoint "
            f"{checkpoint.checkpoint_id!r}; it was copied or renamed"
        )
    return checkpoint
