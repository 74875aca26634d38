"""`Skill`, the base of every skill, and `InlineSkill`, a skill defined in code."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from agentry.skills._errors import SkillError
from agentry.skills._frontmatter import SkillFrontmatter
from agentry.skills._resource import SkillResource
from agentry.skills._script import SkillScript

__all__ = ["InlineSkill", "Skill"]

_ItemT = TypeVar("_ItemT", SkillResource, SkillScript)


class Skill(ABC):
    """Instructions for a kind of task (`content`), described by `frontmatter`, with
    resources to read and scripts to run.

    Subclasses: :class:`InlineSkill` (code), :class:`FileSkill` (a SKILL.md directory) and
    :class:`ClassSkill` (a class with decorated methods).
    """

    frontmatter: SkillFrontmatter
    content: str

    @property
    def name(self) -> str:
        """The skill's name, from its frontmatter."""
        return self.frontmatter.name

    @property
    def description(self) -> str:
        """The skill's description, from its frontmatter."""
        return self.frontmatter.description

    @property
    def directory(self) -> Path | None:
        """Where the skill's files are; file scripts run there. None for a code-only skill."""
        return None

    @property
    @abstractmethod
    def resources(self) -> Sequence[SkillResource]:
        """The skill's resources."""

    @property
    @abstractmethod
    def scripts(self) -> Sequence[SkillScript]:
        """The skill's scripts."""

    def get_resource(self, name: str) -> SkillResource | None:
        """The resource called `name`, if there is one."""
        return next((r for r in self.resources if r.name == name), None)

    def get_script(self, name: str) -> SkillScript | None:
        """The script called `name`, if there is one."""
        return next((s for s in self.scripts if s.name == name), None)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class InlineSkill(Skill):
    """A skill written in code.

    Args:
        frontmatter: The skill's name, description and other metadata.
        content: The instructions.
        resources: Content the model may read.
        scripts: Functions (or files under `directory`) the model may run.
        directory: Where file scripts are; they may not lead outside it.

    Example:
        >>> skill = InlineSkill(
        ...     frontmatter=SkillFrontmatter(name="haiku", description="Write haiku."),
        ...     content="Write three lines of 5, 7 and 5 syllables.",
        ... )
        >>> skill.name
        'haiku'
    """

    def __init__(
        self,
        *,
        frontmatter: SkillFrontmatter,
        content: str,
        resources: Sequence[SkillResource] = (),
        scripts: Sequence[SkillScript] = (),
        directory: str | Path | None = None,
    ) -> None:
        self.frontmatter = frontmatter
        self.content = content
        self._resources = unique_names("resource", frontmatter.name, resources)
        self._scripts = unique_names("script", frontmatter.name, scripts)
        self._directory = Path(directory) if directory is not None else None

    @property
    def directory(self) -> Path | None:
        return self._directory

    @property
    def resources(self) -> Sequence[SkillResource]:
        return self._resources

    @property
    def scripts(self) -> Sequence[SkillScript]:
        return self._scripts


def unique_names(kind: str, skill: str, items: Sequence[_ItemT]) -> list[_ItemT]:
    seen: set[str] = set()
    for item in items:
        if item.name in seen:
            raise SkillError(f"skill {skill!r} has two {kind}s named {item.name!r}")
        seen.add(item.name)
    return list(items)
