"""`FileSkill`: a skill read from a directory holding a SKILL.md file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agentry.observability import get_logger
from agentry.skills._errors import SkillError
from agentry.skills._frontmatter import SkillFrontmatter, parse_skill_markdown
from agentry.skills._resource import SkillResource
from agentry.skills._script import SkillScript
from agentry.skills._skill import Skill

__all__ = ["SKILL_FILE", "FileSkill", "contained_path"]

SKILL_FILE = "SKILL.md"
RESOURCE_FOLDERS = ("references", "assets")
SCRIPT_FOLDER = "scripts"

logger = get_logger("agentry.skills")


class FileSkill(Skill):
    """A skill in a directory: `SKILL.md` (frontmatter and instructions), and optional
    `references/` and `assets/` (its resources) and `scripts/` (its scripts) folders.

    Resources and scripts are named by their path in the directory, such as
    `references/forms.md` or `scripts/fill.py`. Files that resolve outside the directory
    (through a symbolic link) are left out.

    Args:
        directory: The skill's directory; its name must be the skill's name.
        frontmatter: The metadata, when not read from SKILL.md (give `content` with it).
        content: The instructions, when not read from SKILL.md.

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
    ) -> None:
        path = Path(directory)
        if not path.is_dir():
            raise SkillError(f"skill directory {str(path)!r} does not exist")
        if frontmatter is None:
            skill_file = path / SKILL_FILE
            if not skill_file.is_file():
                raise SkillError(f"skill directory {str(path)!r} has no {SKILL_FILE} file")
            try:
                text = skill_file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise SkillError(f"cannot read {skill_file}: {error}") from None
            frontmatter, body = parse_skill_markdown(text)
            content = body if content is None else content
        elif content is None:
            raise SkillError("a FileSkill given frontmatter= needs content= too")
        if frontmatter.name != path.resolve().name:
            raise SkillError(
                f"skill name {frontmatter.name!r} must match its directory name "
                f"{path.resolve().name!r}; rename one of them"
            )
        self.frontmatter = frontmatter
        self.content = content
        self._directory = path.resolve()
        self._set_parts(
            [
                SkillResource(name, function=_file_reader(self._directory, name))
                for folder in RESOURCE_FOLDERS
                for name in _files(self._directory, folder)
            ],
            [SkillScript(name, path=name) for name in _files(self._directory, SCRIPT_FOLDER)],
        )

    @property
    def directory(self) -> Path:
        return self._directory


def contained_path(root: Path, relative: str | Path) -> Path:
    """`relative` resolved under `root`, refusing a path that leads outside it.

    Raises:
        SkillError: The path leads outside `root` (through `..` or a symbolic link).
    """
    base = root.resolve()
    resolved = (base / relative).resolve()
    if resolved != base and base not in resolved.parents:
        raise SkillError(
            f"{str(relative)!r} leads outside the skill directory {str(base)!r}; "
            "skills may only use their own files"
        )
    return resolved


def _files(root: Path, folder: str) -> list[str]:
    """Relative names of the regular files under `root/folder`, hidden ones left out."""
    top = root / folder
    if not top.is_dir():
        return []
    names: list[str] = []
    for path in sorted(top.rglob("*")):
        relative = path.relative_to(root)
        if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
            continue
        try:
            resolved = contained_path(root, relative)
        except SkillError as error:
            logger.warning("skipping %s: %s", path, error)
            continue
        if resolved.is_file():
            names.append(relative.as_posix())
    return names


def _file_reader(root: Path, name: str) -> Callable[[], str]:
    def read() -> str:
        path = contained_path(root, name)
        data = path.read_bytes()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return f"[{name} is a binary file of {len(data)} bytes; it cannot be shown as text]"

    return read
