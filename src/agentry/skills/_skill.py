"""`Skill`, the base of every skill, and `InlineSkill`, a skill defined in code."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agentry.skills._errors import SkillError
from agentry.skills._frontmatter import SkillFrontmatter
from agentry.skills._resource import SkillResource
from agentry.skills._script import SkillScript

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["InlineSkill", "Skill"]

_ItemT = TypeVar("_ItemT", SkillResource, SkillScript)


class Skill:
    """Instructions for a kind of task (`content`), described by `frontmatter`, with
    resources to read and scripts to run.

    Subclasses: :class:`InlineSkill` (code), :class:`FileSkill` (a SKILL.md directory) and
    :class:`ClassSkill` (a class with decorated methods).
    """

    frontmatter: SkillFrontmatter
    content: str
    _resources: Sequence[SkillResource] = ()
    _scripts: Sequence[SkillScript] = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        if cls is Skill:
            raise TypeError(
                "Skill is abstract: use InlineSkill, FileSkill or ClassSkill, or subclass it"
            )
        return super().__new__(cls)

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
    def resources(self) -> Sequence[SkillResource]:
        """The skill's resources."""
        return self._resources

    @property
    def scripts(self) -> Sequence[SkillScript]:
        """The skill's scripts."""
        return self._scripts

    def _set_parts(
        self, resources: Sequence[SkillResource], scripts: Sequence[SkillScript]
    ) -> None:
        """Keep the skill's resources and scripts, refusing two of a kind with one name.

        Raises:
            SkillError: Two resources, or two scripts, share a name.
        """
        self._resources = unique_names("resource", self.frontmatter.name, resources)
        self._scripts = unique_names("script", self.frontmatter.name, scripts)

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
        self._set_parts(resources, scripts)
        self._directory = Path(directory) if directory is not None else None

    @property
    def directory(self) -> Path | None:
        return self._directory


def unique_names(kind: str, skill: str, items: Sequence[_ItemT]) -> list[_ItemT]:
    seen: set[str] = set()
    for item in items:
        if item.name in seen:
            raise SkillError(f"skill {skill!r} has two {kind}s named {item.name!r}")
        seen.add(item.name)
    return list(items)
