"""The structured answers orchestration managers give (pydantic models)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

__all__ = ["MagenticPlan", "ProgressLedger", "SpeakerChoice"]


class SpeakerChoice(BaseModel):
    """A group chat manager's pick of the next speaker (None ends the chat)."""

    next_speaker: str | None = None
    reason: str = ""


_Entry = Annotated[str, StringConstraints(max_length=400)]
# Bounds in the schema keep models that decode against it from listing forever.
_MAX_ENTRIES = 12


class MagenticPlan(BaseModel):
    """A magentic manager's facts ledger and plan for the task."""

    facts: list[_Entry] = Field(default_factory=list[_Entry], max_length=_MAX_ENTRIES)
    """What is known, what must be looked up, what must be derived, educated guesses."""
    plan: list[_Entry] = Field(default_factory=list[_Entry], max_length=_MAX_ENTRIES)
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
