"""`RunHandle`: what the handles of durable workflow runs and agent runs share.

A handle reads and writes the runtime's database only, so it works in any process: it
finds the run, reads its status and result, sends answers, and follows the run's
recorded steps as they are written.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, TypeVar

from dbos._error import DBOSNonExistentWorkflowError
from sqlalchemy.exc import DBAPIError

from agentry.durable._errors import DurableRunError
from agentry.durable._serializer import failure_of

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from dbos import WorkflowHandleAsync, WorkflowStatus
    from dbos._sys_db import StepInfo

    from agentry.durable._runtime import DurableRuntime

__all__ = ["ENDED", "POLL_SECONDS", "RunHandle"]

T = TypeVar("T")

POLL_SECONDS = 0.1
"""How often a handle reads the database while it waits for a run."""
ENDED = frozenset({"SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"})
"""The statuses of a run that will not change any more."""


class RunHandle:
    """A durable run, by id (the base of `DurableRun` and `DurableAgentRun`).

    Attributes:
        run_id: The run's id.
    """

    _function_name = ""
    """The DBOS workflow this kind of run is."""
    _kind = "durable run"

    def __init__(
        self,
        runtime: DurableRuntime,
        run_id: str,
        *,
        handle: WorkflowHandleAsync[Any] | None = None,
    ) -> None:
        self._runtime = runtime
        self.run_id = run_id
        self._started = handle  # the run's task, when this process started it

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.run_id!r})"

    async def _retrieve(self) -> WorkflowHandleAsync[Any]:
        try:
            return await self._runtime.client().retrieve_workflow_async(self.run_id)
        except DBOSNonExistentWorkflowError:
            raise DurableRunError(
                f"there is no durable run with id {self.run_id!r} in "
                f"{self._runtime.safe_database_url}"
            ) from None
        except DBAPIError as error:
            raise self._runtime.unreadable(error) from error

    async def status_record(self) -> WorkflowStatus:
        """The run's DBOS status record.

        Raises:
            DurableRunError: There is no such run.
        """
        return await (await self._retrieve()).get_status()

    async def _status_record(self) -> WorkflowStatus:
        """The run's DBOS status, checked to be a run of this handle's kind."""
        status = await self.status_record()
        if status.name != self._function_name:
            kind = "an agent run" if status.name.endswith("agent_run") else "not " + self._kind
            raise DurableRunError(
                f"run {self.run_id!r} is {kind}, not a {self._kind}; use "
                "DurableRuntime.run() for workflow runs and agent_run() for agent runs"
            )
        return status

    async def status(self) -> str:
        """The run's status: `PENDING` (running or waiting), `SUCCESS`, `ERROR`,
        `CANCELLED`, `ENQUEUED`...

        Raises:
            DurableRunError: There is no such run, or it is of the other kind.
        """
        return str((await self._status_record()).status)

    async def _raw_result(self, timeout: float | None) -> Any:
        """The run's stored output, once it ends.

        Raises:
            DurableRunFailedError: The run failed.
            TimeoutError: The run did not end within `timeout` seconds.
        """
        return await asyncio.wait_for(self._await_result(), timeout)

    async def _await_result(self) -> Any:
        if self._started is not None:
            try:
                return await self._started.get_result()
            except Exception as error:  # as a client reading the database would see it
                raise failure_of(error) from error
        handle: Any = await self._retrieve()
        return await handle.get_result(polling_interval_sec=POLL_SECONDS)

    async def _first_nonempty(
        self, read: Callable[[], Awaitable[list[T]]], timeout: float
    ) -> list[T]:
        """Read until `read` returns something; what it returned.

        Raises:
            TimeoutError: Nothing came within `timeout` seconds.
        """

        async def poll() -> list[T]:
            while True:
                found = await read()
                if found:
                    return found
                await asyncio.sleep(POLL_SECONDS)

        return await asyncio.wait_for(poll(), timeout)

    async def _send(self, key: str, payload: dict[str, object], topic: str) -> None:
        """Send `payload` to the run, once per `key` (sent again, it is not delivered
        again)."""
        await self._runtime.client().send_async(
            self.run_id, payload, topic, idempotency_key=f"{self.run_id}/{key}"
        )

    async def _recorded_steps(self) -> AsyncIterator[tuple[list[StepInfo], str]]:
        """The run's steps as they are recorded, each once, in batches, with the run's
        status as it was before the batch was read; the last batch is read after the run
        ended. Steps recorded by any worker (after a takeover too) are read alike."""
        await self._status_record()
        client = self._runtime.client()
        handle = await self._retrieve()
        seen: set[int] = set()
        while True:
            status = str((await handle.get_status()).status)
            steps = await client.list_workflow_steps_async(self.run_id)
            fresh = [s for s in steps if s["function_id"] not in seen]
            seen.update(s["function_id"] for s in fresh)
            yield fresh, status
            if status in ENDED:
                return
            await asyncio.sleep(POLL_SECONDS)

    async def _error(self) -> Exception:
        """The error a run that ended with ERROR raised."""
        try:
            await self._raw_result(None)
        except Exception as error:
            return error
        return DurableRunError(f"run {self.run_id!r} did not fail")
