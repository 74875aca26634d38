"""The structured answers orchestration managers give (pydantic models)."""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["MagenticPlan", "ProgressLedger", "SpeakerChoice"]


class SpeakerChoice(BaseModel):
    """A group chat manager's pick of the next speaker (None ends the chat)."""

    next_speaker: str | None = None
    reason: str = ""


class MagenticPlan(BaseModel):
    """A magentic manager's facts ledger and plan for the task."""

    facts: list[str] = Field(default_factory=list[str])
    """What is known, what must be looked up, what must be derived, educated guesses."""
    plan: list[str] = Field(default_factory=list[str])
    """The steps, each naming the participant best placed to carry it out."""


class ProgressLedger(BaseModel):
    """A magentic manager's assessment after each round."""

    is_request_satisfied: bool
    """Whether the task is done."""
    is_progress_being_made: bool = True
    """Whether the last rounds moved the task forward."""
    is_in_loop: bool = False
    """Whether the participants repeat themselves."""
    next_speaker: str = ""
    """Who acts next."""
    instruction: str = ""
    """What the next speaker should do."""
    reason: str = ""
