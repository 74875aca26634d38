"""Multi-agent orchestrations built on the workflow engine.

Each orchestrator builds an ordinary `Workflow` (`build()`): run it, stream its events,
checkpoint and resume it, or use it as an agent (`as_agent()`).

- `SequentialOrchestrator`: agents speak in order over a shared conversation.
- `ConcurrentOrchestrator`: agents answer the same input at once; an aggregator combines.
- `GroupChatOrchestrator`: a manager picks each next speaker.
- `MagenticOrchestrator`: a manager agent plans, delegates, tracks progress, re-plans.
- `HandoffOrchestrator`: agents hand the conversation over through generated tools.

Group chat, magentic and handoff stop on a `TerminationCondition` (`MaxRounds`,
`KeywordTermination`, `PredicateTermination`, combined with `|` and `&`).

Example:
    >>> import asyncio
    >>> from agentry.clients.scripted import ScriptedChatClient
    >>> writer = ScriptedChatClient(["A draft."]).as_agent(name="writer")
    >>> editor = ScriptedChatClient(["An edit."]).as_agent(name="editor")
    >>> workflow = SequentialOrchestrator(participants=[writer, editor]).build()
    >>> [m.author_name for m in asyncio.run(workflow.run("Write.")).get_outputs()[0]]
    ['writer', 'editor']
"""

from typing import TYPE_CHECKING

from agentry.errors import lazy_exports
from agentry.orchestrations._base import Orchestrator
from agentry.orchestrations._concurrent import Aggregator, ConcurrentOrchestrator, last_messages
from agentry.orchestrations._errors import OrchestrationError
from agentry.orchestrations._group_chat import (
    GroupChatOrchestrator,
    GroupChatState,
    SpeakerSelector,
    round_robin,
)
from agentry.orchestrations._handoff import (
    HANDOFF_EVENT,
    HandoffOrchestrator,
    HandoffUserInputRequest,
    handoff_tool_name,
)
from agentry.orchestrations._magentic import (
    MAGENTIC_PLAN_EVENT,
    MAGENTIC_PROGRESS_EVENT,
    MagenticOrchestrator,
    MagenticPlanReview,
    MagenticPlanReviewRequest,
)
from agentry.orchestrations._participants import (
    AGENT_TURN_EVENT,
    TERMINATED_EVENT,
    AgentReply,
    AgentTurn,
    ParticipantExecutor,
)
from agentry.orchestrations._sequential import SequentialOrchestrator
from agentry.orchestrations._termination import (
    AllOf,
    AnyOf,
    KeywordTermination,
    MaxRounds,
    PredicateTermination,
    TerminationCondition,
    TerminationContext,
)

if TYPE_CHECKING:
    from agentry.orchestrations._ledgers import MagenticPlan, ProgressLedger, SpeakerChoice

_LEDGERS = ("MagenticPlan", "ProgressLedger", "SpeakerChoice")

__all__ = [
    "AGENT_TURN_EVENT",
    "HANDOFF_EVENT",
    "MAGENTIC_PLAN_EVENT",
    "MAGENTIC_PROGRESS_EVENT",
    "TERMINATED_EVENT",
    "AgentReply",
    "AgentTurn",
    "Aggregator",
    "AllOf",
    "AnyOf",
    "ConcurrentOrchestrator",
    "GroupChatOrchestrator",
    "GroupChatState",
    "HandoffOrchestrator",
    "HandoffUserInputRequest",
    "KeywordTermination",
    "MagenticOrchestrator",
    "MagenticPlanReview",
    "MagenticPlan",
    "MagenticPlanReviewRequest",
    "MaxRounds",
    "OrchestrationError",
    "Orchestrator",
    "ParticipantExecutor",
    "PredicateTermination",
    "ProgressLedger",
    "SequentialOrchestrator",
    "SpeakerChoice",
    "SpeakerSelector",
    "TerminationCondition",
    "TerminationContext",
    "handoff_tool_name",
    "last_messages",
    "round_robin",
]


# The managers' answer models need pydantic: they load only when asked for.
__getattr__, __dir__ = lazy_exports(
    __name__, dict.fromkeys(_LEDGERS, "agentry.orchestrations._ledgers")
)
