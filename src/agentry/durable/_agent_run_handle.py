"""`DurableAgentRun`: a handle to one durable agent run, usable from any process."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from agentry.durable._durable_agent import (
    AGENT_FUNCTION,
    NEW_MESSAGE_DECLINED_RESULT,
    NEW_MESSAGE_KEY,
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

    from agentry.types import AgentResponse, AgentResponseUpdate, Message

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
        await self._send(request_id, {request_id: approved}, RESPONSES_TOPIC)

    async def send_message(
        self, message: Message, *, declined_result: str = NEW_MESSAGE_DECLINED_RESULT
    ) -> list[Content]:
        """Send a new message to a run that waits on approvals, instead of answering them:
        the calls still waiting are declined (they do not run, and their result tells the
        model so) and the agent goes on with `message`, in the same run.

        The run takes one new message per wait: sent again (say, by a process that died
        before it knew the first one went), it is not delivered twice.

        Args:
            message: The new message.
            declined_result: The result the declined calls get.

        Returns:
            The approval requests declined.

        Raises:
            DurableRunError: There is no such run, or it does not wait on approvals.
        """
        pending = await self.pending_requests()
        if not pending:
            raise DurableRunError(
                f"agent run {self.run_id!r} does not wait on approvals, so it takes no new "
                "message; start a new run with the conversation and the message instead"
            )
        waits_on = ",".join(sorted(str(r.id) for r in pending))
        sent = {
            "message": CheckpointTypeRegistry().encode(message),
            "declined_result": declined_result,
        }
        await self._send(f"{NEW_MESSAGE_KEY}/{waits_on}", {NEW_MESSAGE_KEY: sent}, RESPONSES_TOPIC)
        return pending

    async def messages(self, *, timeout: float | None = None) -> list[Message]:
        """Wait for the run to finish; its whole conversation: the messages it started
        with, then each response of the agent, with the answers and new messages that
        came between them.

        Raises:
            DurableRunFailedError: The run failed.
            TimeoutError: The run did not finish within `timeout` seconds.
        """
        output = cast("dict[str, Any]", await self._raw_result(timeout))
        registry = CheckpointTypeRegistry()
        if "conversation" in output:
            return cast("list[Message]", registry.decode(output["conversation"]))
        # A run recorded before runs kept their conversation: its input and last response.
        status = await self._status_record()
        started = cast("list[Message]", registry.decode((status.input or {"args": []})["args"][2]))
        return [*started, *response_of(output).messages]

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
