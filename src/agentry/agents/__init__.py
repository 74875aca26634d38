"""Agents: the `SupportsAgentRun` protocol, `BaseAgent` for custom agents, and `Agent`."""

from agentry.agents._agent import Agent, normalize_tools
from agentry.agents._base import BaseAgent, SupportsAgentRun

__all__ = ["Agent", "BaseAgent", "SupportsAgentRun", "normalize_tools"]
