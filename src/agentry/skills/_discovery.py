"""Finding file skills: every directory with a SKILL.md under some roots."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentry.observability import get_logger
from agentry.skills._errors import SkillError
from agentry.skills._file_skill import SKILL_FILE, FileSkill
from agentry.skills._skill_files import DEFAULT_MAX_RESOURCE_BYTES

__all__ = ["DEFAULT_MAX_DEPTH", "discover_skills"]

DEFAULT_MAX_DEPTH = 4

logger = get_logger("agentry.skills")


def discover_skills(
    directories: Sequence[str | Path],
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
) -> list[FileSkill]:
    """The valid skills under `directories`, in path order.

    A directory holding SKILL.md is a skill (its subfolders are its own files and are not
    searched further). Skills are looked for down to `max_depth` levels below each root (0:
    only the root itself); hidden directories and symbolic links are not followed. An
    invalid skill is skipped with a warning on the `agentry.skills` logger, and the others
    are still found. Each skill reads resources of at most `max_resource_bytes`.

    Raises:
        SkillError: A root directory does not exist.
    """
    if max_depth < 0:
        raise ValueError("max_depth must not be negative")
    skills: list[FileSkill] = []
    for root in directories:
        path = Path(root)
        if not path.is_dir():
            raise SkillError(f"skill directory {str(path)!r} does not exist or is not a folder")
        _collect(path, max_depth, max_resource_bytes, skills)
    return skills


def _collect(
    directory: Path, depth_left: int, max_resource_bytes: int, skills: list[FileSkill]
) -> None:
    skill_file = directory / SKILL_FILE
    if skill_file.is_file():
        try:
            skills.append(FileSkill(directory, max_resource_bytes=max_resource_bytes))
        except SkillError as error:
            logger.warning("skipping the invalid skill %s: %s", skill_file, error)
        return
    if depth_left == 0:
        return
    try:
        children = sorted(directory.iterdir())
    except OSError as error:
        logger.warning("cannot list %s for skills: %s", directory, error)
        return
    for child in children:
        if child.name.startswith(".") or child.is_symlink() or not child.is_dir():
            continue
        _collect(child, depth_left - 1, max_resource_bytes, skills)
