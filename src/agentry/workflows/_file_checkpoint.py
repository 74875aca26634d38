"""`FileCheckpointStorage`: one JSON file per checkpoint in a directory."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import tempfile
from pathlib import Path

from agentry.workflows._checkpoint import (
    CheckpointStorage,
    WorkflowCheckpoint,
    read_stored_checkpoint,
)
from agentry.workflows._errors import WorkflowCheckpointException

__all__ = ["FileCheckpointStorage"]

logger = logging.getLogger("agentry.workflows")
_SAFE_ID = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


class FileCheckpointStorage(CheckpointStorage):
    """Keeps each checkpoint as `<checkpoint_id>.json` in a directory.

    A save writes a temporary file and renames it over the target, so a crash mid-save
    leaves every earlier checkpoint as it was.

    Args:
        directory: The directory (created when missing).

    Example:
        >>> storage = FileCheckpointStorage(".agentry/checkpoints")
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _path(self, checkpoint_id: str) -> Path:
        if not _SAFE_ID.match(checkpoint_id) or checkpoint_id.startswith("."):
            raise WorkflowCheckpointException(
                f"{checkpoint_id!r} is not a valid checkpoint id (use letters, digits, '_', "
                "'-' and '.')"
            )
        return self.directory / f"{checkpoint_id}.json"

    async def save(self, checkpoint: WorkflowCheckpoint) -> str:
        path = self._path(checkpoint.checkpoint_id)
        text = checkpoint.to_json()
        await asyncio.to_thread(self._write_atomically, path, text)
        return checkpoint.checkpoint_id

    def _write_atomically(self, path: Path, text: str) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, temp_name = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temp_name, path)
        except BaseException:
            Path(temp_name).unlink(missing_ok=True)
            raise

    async def load(self, checkpoint_id: str) -> WorkflowCheckpoint:
        path = self._path(checkpoint_id)
        try:
            data = await asyncio.to_thread(path.read_bytes)
        except FileNotFoundError:
            raise WorkflowCheckpointException(
                f"no checkpoint with id {checkpoint_id!r} in {self.directory}"
            ) from None
        except OSError as error:
            raise WorkflowCheckpointException(
                f"cannot read checkpoint {checkpoint_id!r}: {error}"
            ) from error
        return read_stored_checkpoint(checkpoint_id, data)

    async def list_checkpoint_ids(self, *, workflow_name: str) -> list[str]:
        return await asyncio.to_thread(self._scan, workflow_name)

    def _scan(self, workflow_name: str) -> list[str]:
        if not self.directory.is_dir():
            return []
        found: list[tuple[str, int, str]] = []
        for path in self.directory.glob("*.json"):
            if path.name.startswith("."):
                continue
            try:
                data = json.loads(path.read_bytes())
                name = data["workflow_name"]
                order = (str(data["timestamp"]), int(data["iteration_count"]), path.stem)
            except (OSError, ValueError, KeyError, TypeError) as error:
                logger.warning("skipping unreadable checkpoint file %s: %s", path, error)
                continue
            if name == workflow_name:
                found.append(order)
        found.sort()
        return [checkpoint_id for _, _, checkpoint_id in found]

    async def delete(self, checkpoint_id: str) -> bool:
        path = self._path(checkpoint_id)
        try:
            await asyncio.to_thread(path.unlink)
        except FileNotFoundError:
            return False
        return True
