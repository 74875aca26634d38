"""Durable agent runs: the DBOS workflow an agent run is, and a handle to one run."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

from dbos import DBOS
from dbos._error import DBOSNonExistentWorkflowError
from sqlalchemy.exc import DBAPIError

from agentry.durable._agent_steps import AgentSteps
from agentry.durable._durable_workflow import launched_source
from agentry.durable._errors import DurableRunError
from agentry.durable._serializer import failure_of
from agentry.types import AgentResponse
from agentry.workflows import CheckpointTypeRegistry

if TYPE_CHECKING:
    from dbos import WorkflowHandleAsync

    from agentry.durable._runtime import DurableRuntime

__all__ = ["AGENT_FUNCTION", "DurableAgentRun", "durable_agent_run"]

AGENT_FUNCTION = "agentry.agent_run"
_POLL_SECONDS = 0.1
"""The name DBOS knows every durable agent run by."""


@DBOS.workflow(name=AGENT_FUNCTION)
async def durable_agent_run(agent_name: str, messages: list[Any]) -> dict[str, Any]:
    """Run a registered agent on `messages` (encoded); its response, encoded."""
    agent = launched_source().agent(agent_name)
    registry = CheckpointTypeRegistry()
    steps = AgentSteps(registry)
    response = await agent.run(registry.decode(messages), middleware=steps.middleware())
    return {"response": registry.encode(response)}


class DurableAgentRun:
    """A durable agent run, by id: its status and its response, from any process.

    Attributes:
        run_id: The run's id.
    """

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
        return f"DurableAgentRun({self.run_id!r})"

    async def _handle(self) -> WorkflowHandleAsync[Any]:
        try:
            return await self._runtime.client().retrieve_workflow_async(self.run_id)
        except DBOSNonExistentWorkflowError:
            raise DurableRunError(
                f"there is no durable run with id {self.run_id!r} in "
                f"{self._runtime.safe_database_url}"
            ) from None
        except DBAPIError as error:
            raise self._runtime.unreadable(error) from error

    async def status(self) -> str:
        """The run's status (`PENDING`, `SUCCESS`, `ERROR`, ...).

        Raises:
            DurableRunError: There is no run with this id.
        """
        return str((await (await self._handle()).get_status()).status)

    async def result(self, *, timeout: float | None = None) -> AgentResponse:
        """Wait for the run to finish; the agent's response.

        Raises:
            DurableRunFailedError: The run failed.
            TimeoutError: The run did not finish within `timeout` seconds.
        """
        value = cast("dict[str, Any]", await asyncio.wait_for(self._result(), timeout))
        return cast(AgentResponse, CheckpointTypeRegistry().decode(value["response"]))

    async def _result(self) -> Any:
        if self._started is not None:
            try:
                return await self._started.get_result()
            except Exception as error:  # as a client reading the database would see it
                raise failure_of(error) from error
        handle: Any = await self._handle()
        return await handle.get_result(polling_interval_sec=_POLL_SECONDS)
