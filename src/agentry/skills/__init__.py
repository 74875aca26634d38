"""Agent Skills: packaged instructions, resources and scripts an agent loads when needed.

A skill is a folder with a `SKILL.md` file (YAML frontmatter with a name and description,
then the instructions) and optional `references/`, `assets/` and `scripts/` folders, or a
skill defined in code. :class:`SkillsProvider` offers skills to an agent.

Example:
    >>> from agentry.skills import InlineSkill, SkillFrontmatter, SkillsProvider
    >>> provider = SkillsProvider(skills=[InlineSkill(
    ...     frontmatter=SkillFrontmatter(name="haiku", description="Write haiku."),
    ...     content="Write three lines of 5, 7 and 5 syllables.",
    ... )])
    >>> [tool.name for tool in provider.tools]
    ['load_skill']
"""

from __future__ import annotations

from agentry.skills._class_skill import ClassSkill
from agentry.skills._discovery import discover_skills
from agentry.skills._errors import SkillError, SkillScriptError
from agentry.skills._file_skill import FileSkill
from agentry.skills._frontmatter import SkillFrontmatter, parse_skill_markdown
from agentry.skills._provider import SkillsProvider
from agentry.skills._resource import SkillResource
from agentry.skills._runner import SkillScriptResult, SkillScriptRunner, SubprocessScriptRunner
from agentry.skills._script import ScriptArguments, SkillScript
from agentry.skills._skill import InlineSkill, Skill

__all__ = [
    "ClassSkill",
    "FileSkill",
    "InlineSkill",
    "ScriptArguments",
    "Skill",
    "SkillError",
    "SkillFrontmatter",
    "SkillResource",
    "SkillScript",
    "SkillScriptError",
    "SkillScriptResult",
    "SkillScriptRunner",
    "SkillsProvider",
    "SubprocessScriptRunner",
    "discover_skills",
    "parse_skill_markdown",
]
