"""The errors of agentry.skills."""

from __future__ import annotations

from agentry.errors import AgentryError

__all__ = ["SkillError", "SkillScriptError"]


class SkillError(AgentryError, ValueError):
    """A skill is malformed: bad frontmatter, a missing SKILL.md, a duplicate name..."""


class SkillScriptError(SkillError):
    """A skill's script cannot be run, such as a path leading outside the skill directory."""
