"""Multi-agent orchestrations built on the workflow engine.

Each orchestrator builds an ordinary `Workflow`: run it, stream its events, checkpoint and
resume it, or use it as an agent with `as_agent()`.

- `SequentialOrchestrator`: agents speak in order over a shared conversation.
"""

from agentry.orchestrations._base import Orchestrator
from agentry.orchestrations._errors import OrchestrationError
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

__all__ = [
    "AGENT_TURN_EVENT",
    "TERMINATED_EVENT",
    "AgentReply",
    "AgentTurn",
    "AllOf",
    "AnyOf",
    "KeywordTermination",
    "MaxRounds",
    "OrchestrationError",
    "Orchestrator",
    "ParticipantExecutor",
    "PredicateTermination",
    "SequentialOrchestrator",
    "TerminationCondition",
    "TerminationContext",
]
