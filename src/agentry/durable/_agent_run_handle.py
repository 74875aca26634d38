"""`DurableAgentRun`: a handle to one durable agent run, usable from any process."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from agentry.durable._durable_agent import (
    AGENT_FUNCTION,
    check_approval,
    response_of,
)
from agentry.durable._durable_workflow import REQUESTS_EVENT, RESPONSES_TOPIC
from agentry.durable._errors import DurableRunError
from agentry.durable._following import agent_updates
from agentry.durable._handle import RunHandle
from agentry.types import Content
from agentry.workflows import CheckpointTypeRegistry

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from agentry.types import AgentResponse, AgentResponseUpdate

__all__ = ["DurableAgentRun"]


class DurableAgentRun(RunHandle):
    """A durable agent run, by id: its status, the tool approvals it waits on, answers,
    its updates as they are recorded, and its response, from any process.

    Attributes:
        run_id: The run's id.
    """

    _function_name = AGENT_FUNCTION
    _kind = "agent run"

    async def _agent_name(self) -> str:
        status = await self._status_record()
        inputs = status.input
        if inputs is None or len(inputs["args"]) < 3:
            raise DurableRunError(f"run {self.run_id!r} is not an agentry agent run")
        name, fingerprint = str(inputs["args"][0]), str(inputs["args"][1])
        self._runtime.agent(name, fingerprint)  # refuses a run of a changed agent
        return name

    async def pending_requests(self) -> list[Content]:
        """The `function_approval_request` contents of the tool calls the run waits on a
        person's approval for (empty when none).

        Raises:
            DurableRunError: There is no such run, or its agent is not registered here (or
                has changed since the run started).
        """
        await self._agent_name()
        records = await self._runtime.client().get_event_async(
            self.run_id, REQUESTS_EVENT, timeout_seconds=0
        )
        return cast("list[Content]", CheckpointTypeRegistry().decode(records or []))

    async def wait_for_requests(self, *, timeout: float = 60.0) -> list[Content]:
        """Wait until the run waits on an approval; its pending approval requests.

        Raises:
            TimeoutError: No request came within `timeout` seconds.
        """
        return await self._first_nonempty(self.pending_requests, timeout)

    async def send_response(self, request_id: str, approved: bool) -> None:
        """Approve (True) or reject (False) a tool call the run waits on; the run goes on
        wherever it runs. A rejected call does not run, and the model is told so.

        Raises:
            DurableRunError: There is no such run, it does not wait on `request_id`
                (never asked, or answered already), or `approved` is not a bool.
        """
        check_approval(self.run_id, request_id, await self.pending_requests(), approved)
        await self._send(request_id, approved, RESPONSES_TOPIC)

    async def stream(self) -> AsyncIterator[AgentResponseUpdate]:
        """Follow the run: an update for each model call (its messages) and tool call (its
        result) as it is recorded, and one with the approval requests when the run waits
        on them, from the start until the run ends.

        Each completed call is reported once, wherever it ran (after a worker takeover
        too); a call under way is reported once it completes.

        Raises:
            DurableRunError: There is no such run, or its agent is not registered here.
            DurableRunFailedError: The run failed.
        """
        agent_name = await self._agent_name()
        registry = CheckpointTypeRegistry()
        async for steps, status in self._recorded_steps():
            for step in steps:
                for update in agent_updates(
                    step["function_name"], step["output"], registry, agent_name
                ):
                    yield update
            if status in ("ERROR", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"):
                raise await self._error()

    async def result(self, *, timeout: float | None = None) -> AgentResponse:
        """Wait for the run to finish; the agent's last response (after the approvals it
        waited on, if any).

        Raises:
            DurableRunFailedError: The run failed.
            TimeoutError: The run did not finish within `timeout` seconds.
        """
        return response_of(await self._raw_result(timeout))
