"""The DBOS workflow a durable agent run is: agent runs, with durable waits for a
person's approval of tool calls in between.

A run whose model asks for a tool that needs approval publishes the approval requests as
a DBOS event of the run (any process can read them) and waits for answers as DBOS
messages to the run (any process can send them). While it waits, the run holds only a
DBOS `recv`: if its process dies, the next worker replays the recorded steps up to the
wait and waits again. Once every request is answered, the agent runs on with the answers,
and the approved calls run as steps.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import TYPE_CHECKING, Any, cast

from dbos import DBOS

from agentry.agents import UsageGuard
from agentry.durable._agent_steps import AgentSteps
from agentry.durable._durable_workflow import (
    ANSWER_WAIT_SECONDS,
    REQUESTS_EVENT,
    RESPONSES_TOPIC,
    launched_source,
)
from agentry.durable._errors import DurableRunError
from agentry.durable._following import APPROVALS_STEP
from agentry.types import Content, Message
from agentry.workflows import CheckpointTypeRegistry

if TYPE_CHECKING:
    from agentry.agents import Agent
    from agentry.types import AgentResponse

__all__ = [
    "AGENT_FUNCTION",
    "NEW_MESSAGE_DECLINED_RESULT",
    "NEW_MESSAGE_KEY",
    "agent_fingerprint",
    "durable_agent_run",
]

logger = logging.getLogger("agentry.durable")

AGENT_FUNCTION = "agentry.agent_run"
"""The name DBOS knows every durable agent run by."""

NEW_MESSAGE_KEY = "agentry.new_message"
"""The key under which a new message, sent instead of answers, reaches a waiting run (no
request id takes it: request ids are tool call ids)."""

NEW_MESSAGE_DECLINED_RESULT = (
    "Error: not run; the user did not approve this tool call and sent a new message instead."
)
"""The default tool result of a call whose approval a new message left undecided."""


def agent_fingerprint(agent: Agent) -> str:
    """A hash of what a durable agent run's records depend on: the agent's name and its
    tools (name and approval mode)."""
    tools = sorted(
        [str(getattr(t, "name", type(t).__name__)), str(getattr(t, "approval_mode", None))]
        for t in agent.tools
    )
    shape = json.dumps({"name": agent.name, "tools": tools})
    return hashlib.sha256(shape.encode()).hexdigest()[:16]


@DBOS.workflow(name=AGENT_FUNCTION)
async def durable_agent_run(
    agent_name: str, fingerprint: str, messages: list[Any]
) -> dict[str, Any]:
    """Run a registered agent on `messages` (encoded), waiting durably for approvals;
    its last response, encoded."""
    agent = launched_source().agent(agent_name, fingerprint)
    registry = CheckpointTypeRegistry()
    usage: UsageGuard | None = None
    if agent.usage_limits is not None or agent.session_usage_limits is not None:
        # The run has no session: its session limits, too, count over the whole run.
        usage = UsageGuard(agent.usage_limits, agent.session_usage_limits, {})
    steps = AgentSteps(registry, usage=usage)
    conversation = cast("list[Message]", registry.decode(messages))
    while True:
        response = await agent.run(conversation, middleware=steps.middleware())
        requests = response.user_input_requests
        if not requests or any(r.type != "function_approval_request" for r in requests):
            return {
                "response": registry.encode(response),
                "conversation": registry.encode([*conversation, *response.messages]),
            }
        answers, new_messages = await _wait_for_approvals(requests, registry)
        # The turn's calls run now, but the rejected and declined ones: number their steps
        # in order.
        rejected = {str(a.id) for a in answers if not a.approved} | {
            str(c.call_id) for m in new_messages for c in m.contents if c.type == "function_result"
        }
        calls = [c for m in response.messages for c in m.contents if c.type == "function_call"]
        steps.reserve_tool_steps([str(c.call_id) for c in calls if c.call_id not in rejected])
        conversation = [*conversation, *response.messages]
        if answers:
            conversation.append(Message("user", answers))
        conversation.extend(new_messages)


async def _wait_for_approvals(
    requests: list[Content], registry: CheckpointTypeRegistry
) -> tuple[list[Content], list[Message]]:
    """Publish the requests, and take answers (approved: bool, by request id) until each
    is answered, or until a new message comes instead.

    Returns:
        The approval responses, and the messages the run goes on with after them: none,
        or (a new message came) the results of the calls left undecided, saying they did
        not run, and the new message.
    """
    pending = {str(r.id): r for r in requests}
    answers: list[Content] = []
    encoded = registry.encode(requests)

    async def record_requests() -> object:
        return encoded

    await DBOS.set_event_async(REQUESTS_EVENT, encoded)
    # For followers, once the requests can be answered.
    await DBOS.run_step_async({"name": APPROVALS_STEP}, record_requests)
    new_messages: list[Message] = []
    while pending:
        received = cast(
            "dict[str, Any]",
            await DBOS.recv_async(RESPONSES_TOPIC, timeout_seconds=ANSWER_WAIT_SECONDS) or {},
        )
        if NEW_MESSAGE_KEY in received:
            new_messages = _declining(list(pending.values()), received[NEW_MESSAGE_KEY], registry)
            break
        for request_id, approved in received.items():
            request = pending.get(request_id)
            if request is None or not isinstance(approved, bool):
                # The sender checks answers before sending; one that slips through (a
                # second answer racing the first) is dropped, and the run keeps waiting.
                logger.warning("agent run ignored an answer to %s", request_id)
                continue
            answers.append(request.to_function_approval_response(approved))
            del pending[request_id]
        if received and pending:
            await DBOS.set_event_async(REQUESTS_EVENT, registry.encode(list(pending.values())))
    await DBOS.set_event_async(REQUESTS_EVENT, [])
    return answers, new_messages


def _declining(
    undecided: list[Content], sent: dict[str, Any], registry: CheckpointTypeRegistry
) -> list[Message]:
    """A tool message saying the `undecided` calls did not run, and the new message `sent`
    (`{"message": encoded message, "declined_result": text}`)."""
    declined = str(sent.get("declined_result") or NEW_MESSAGE_DECLINED_RESULT)
    results = [
        Content.from_function_result(
            call_id=request.function_call.call_id or str(request.id), result=declined
        )
        for request in undecided
        if request.function_call is not None
    ]
    message = cast("Message", registry.decode(sent["message"]))
    return [Message("tool", results), message] if results else [message]


def response_of(value: object) -> AgentResponse:
    """The response a durable agent run's stored output holds."""
    return cast(
        "AgentResponse", CheckpointTypeRegistry().decode(cast("dict[str, Any]", value)["response"])
    )


def check_approval(run_id: str, request_id: str, pending: list[Content], approved: object) -> None:
    """Refuse an answer the run cannot take, before it is sent.

    Raises:
        DurableRunError: The run does not wait on `request_id`, or `approved` is not a bool.
    """
    waiting = sorted(str(r.id) for r in pending)
    if request_id not in waiting:
        raise DurableRunError(
            f"agent run {run_id!r} does not wait on an approval {request_id!r} (it was "
            f"answered already, or never asked); it waits on: {waiting or 'none'}"
        )
    if not isinstance(approved, bool):
        raise DurableRunError(
            f"the answer to approval request {request_id!r} must be a bool (True approves "
            f"the tool call, False rejects it), not a {type(approved).__name__}"
        )
