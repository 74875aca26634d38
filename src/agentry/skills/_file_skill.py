"""`FileSkill`: a skill read from a directory holding a SKILL.md file."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from agentry.skills._errors import SkillError
from agentry.skills._frontmatter import SkillFrontmatter, parse_skill_markdown
from agentry.skills._resource import SkillResource
from agentry.skills._script import SkillScript
from agentry.skills._skill import Skill
from agentry.skills._skill_files import (
    DEFAULT_MAX_RESOURCE_BYTES,
    list_skill_files,
    read_skill_file,
)

__all__ = ["SKILL_FILE", "FileSkill"]

SKILL_FILE = "SKILL.md"
RESOURCE_FOLDERS = ("references", "assets")
SCRIPT_FOLDER = "scripts"
MAX_SKILL_FILE_BYTES = 1024 * 1024


class FileSkill(Skill):
    """A skill in a directory: `SKILL.md` (frontmatter and instructions), and optional
    `references/` and `assets/` (its resources) and `scripts/` (its scripts) folders.

    Resources and scripts are named by their path in the directory, such as
    `references/forms.md` or `scripts/fill.py`. Every file is opened below the directory
    one segment at a time without following symbolic links (a POSIX system is needed):
    links and special files such as FIFOs are left out with a warning, and one swapped in
    later is refused when read or run. Resources are read in a worker thread, and one
    larger than `max_resource_bytes` is refused with an error naming the limit.

    Args:
        directory: The skill's directory; its name must be the skill's name.
        frontmatter: The metadata, when not read from SKILL.md (give `content` with it).
        content: The instructions, when not read from SKILL.md.
        max_resource_bytes: The largest resource read (SKILL.md may hold up to 1 MiB).

    Raises:
        SkillError: SKILL.md is missing or invalid, or the name is not the directory's.

    Example:
        >>> skill = FileSkill("skills/pdf-tools")  # doctest: +SKIP
    """

    def __init__(
        self,
        directory: str | Path,
        *,
        frontmatter: SkillFrontmatter | None = None,
        content: str | None = None,
        max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
    ) -> None:
        path = Path(directory)
        if not path.is_dir():
            raise SkillError(f"skill directory {str(path)!r} does not exist")
        if max_resource_bytes < 1:
            raise ValueError("max_resource_bytes must be at least 1")
        resolved = path.resolve()
        if frontmatter is None:
            frontmatter, body = _read_skill_markdown(resolved)
            content = body if content is None else content
        elif content is None:
            raise SkillError("a FileSkill given frontmatter= needs content= too")
        if frontmatter.name != resolved.name:
            raise SkillError(
                f"skill name {frontmatter.name!r} must match its directory name "
                f"{resolved.name!r}; rename one of them"
            )
        self.frontmatter = frontmatter
        self.content = content
        self.max_resource_bytes = max_resource_bytes
        self._directory = resolved
        self._set_parts(
            [
                SkillResource(name, function=self._reader(name))
                for folder in RESOURCE_FOLDERS
                for name in list_skill_files(resolved, folder)
            ],
            [SkillScript(name, path=name) for name in list_skill_files(resolved, SCRIPT_FOLDER)],
        )

    @property
    def directory(self) -> Path:
        return self._directory

    def _reader(self, name: str) -> Callable[[], Awaitable[str]]:
        async def read() -> str:
            return await asyncio.to_thread(self._read_resource, name)

        return read

    def _read_resource(self, name: str) -> str:
        try:
            data = read_skill_file(self._directory, name, max_bytes=self.max_resource_bytes)
        except SkillError as error:
            raise SkillError(f"cannot read resource {name!r}: {error}") from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return f"[{name} is a binary file of {len(data)} bytes; it cannot be shown as text]"


def _read_skill_markdown(directory: Path) -> tuple[SkillFrontmatter, str]:
    try:
        data = read_skill_file(directory, SKILL_FILE, max_bytes=MAX_SKILL_FILE_BYTES)
    except SkillError as error:
        if not os.path.lexists(directory / SKILL_FILE):
            raise SkillError(
                f"skill directory {str(directory)!r} has no {SKILL_FILE} file"
            ) from None
        raise SkillError(f"cannot read {directory / SKILL_FILE}: {error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SkillError(f"{directory / SKILL_FILE} is not UTF-8 text: {error}") from None
    return parse_skill_markdown(text)
