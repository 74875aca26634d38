"""`Orchestrator`: what the five orchestrations have in common."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from typing_extensions import Self

from agentry.orchestrations._errors import OrchestrationError
from agentry.orchestrations._participants import is_agent, participant_name

if TYPE_CHECKING:
    from agentry.agents import SupportsAgentRun
    from agentry.workflows import CheckpointStorage, Workflow, WorkflowAgent

__all__ = ["Orchestrator"]

ORCHESTRATION_MAX_SUPERSTEPS = 1000
"""Supersteps one run call may take: termination conditions end runs well before this."""


class Orchestrator:
    """Base of the orchestrators: participants, a name, checkpointing, `build`, `as_agent`.

    Each orchestrator builds a `Workflow` (`build()`); run it like any workflow, or use
    it as an agent (`as_agent()`).

    Args:
        participants: The agents taking part (named; names must be unique).
        name: The workflow's name (checkpoints are listed by it).
        description: What the orchestration does.
        checkpoint_storage: Save a checkpoint here at every superstep.
    """

    _default_name = "orchestration"
    _reserved_ids: tuple[str, ...] = ()

    def __init__(
        self,
        participants: Sequence[SupportsAgentRun] = (),
        *,
        name: str | None = None,
        description: str | None = None,
        checkpoint_storage: CheckpointStorage | None = None,
    ) -> None:
        self.participants: list[SupportsAgentRun] = []
        self.name = name or self._default_name
        self.description = description
        self.checkpoint_storage = checkpoint_storage
        self.add_participants(participants)

    def add_participants(self, participants: Sequence[SupportsAgentRun]) -> Self:
        """Add agents to the orchestration.

        Raises:
            TypeError: A participant is not an agent.
            OrchestrationError: Two participants share a name, or one uses a reserved name.
        """
        for agent in participants:
            if not is_agent(agent):
                raise TypeError(
                    f"participants must be agents (with run() and create_session()), not {agent!r}"
                )
            name = participant_name(agent)
            if name in self._reserved_ids:
                raise OrchestrationError(
                    f"a participant is named {name!r}, a name the {type(self).__name__} uses "
                    "for itself; rename the agent"
                )
            if name in self.participant_names:
                raise OrchestrationError(
                    f"two participants are named {name!r}; give each agent a unique name"
                )
            self.participants.append(agent)
        return self

    @property
    def participant_names(self) -> list[str]:
        """The participants' names, in order."""
        return [participant_name(a) for a in self.participants]

    def with_checkpointing(self, checkpoint_storage: CheckpointStorage) -> Self:
        """Save a checkpoint to `checkpoint_storage` at every superstep."""
        self.checkpoint_storage = checkpoint_storage
        return self

    def _require_participants(self, at_least: int = 1) -> None:
        if len(self.participants) < at_least:
            raise OrchestrationError(
                f"{type(self).__name__} needs at least {at_least} participant"
                f"{'s' if at_least > 1 else ''}; pass participants=[...]"
            )

    def build(self) -> Workflow:
        """The orchestration as a new `Workflow` (fresh executors each time)."""
        raise NotImplementedError

    def as_agent(self, *, name: str | None = None, description: str | None = None) -> WorkflowAgent:
        """A newly built workflow of this orchestration, as an agent."""
        return self.build().as_agent(
            name=name or self.name, description=description or self.description
        )

    def _builder_options(self, output_executor: object) -> dict[str, Any]:
        """The `WorkflowBuilder` options every orchestration uses."""
        return {
            "max_iterations": ORCHESTRATION_MAX_SUPERSTEPS,
            "name": self.name,
            "description": self.description,
            "checkpoint_storage": self.checkpoint_storage,
            "output_from": [output_executor],
            "intermediate_output_from": "all_other",
        }
