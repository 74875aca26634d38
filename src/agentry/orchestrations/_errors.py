"""Errors of the orchestrations."""

from __future__ import annotations

from agentry.errors import AgentryError

__all__ = ["OrchestrationError"]


class OrchestrationError(AgentryError):
    """An orchestration was configured wrongly, or its manager answered something unusable."""
