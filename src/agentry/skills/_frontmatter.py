"""`SkillFrontmatter`: a skill's discovery metadata, and reading it from a SKILL.md file."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import yaml

from agentry.skills._errors import SkillError

__all__ = ["SkillFrontmatter", "parse_skill_markdown"]

NAME_MAX_LENGTH = 64
DESCRIPTION_MAX_LENGTH = 1024
COMPATIBILITY_MAX_LENGTH = 500
_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_FIELDS = ("name", "description", "license", "compatibility", "allowed-tools", "metadata")


@dataclass
class SkillFrontmatter:
    """What an agent sees of a skill before loading it: its name and description, and more.

    The constructor checks the Agent Skills rules; later assignments are not checked.

    Args:
        name: 1-64 lowercase letters, digits and hyphens, not starting or ending with a
            hyphen and without two hyphens in a row. A file skill's name is its directory's.
        description: What the skill does and when to use it (1-1024 characters).
        license: The license of the skill, a name or a bundled file.
        compatibility: What the skill needs to run (at most 500 characters).
        allowed_tools: Tools the skill may use without asking (`allowed-tools` in SKILL.md).
        metadata: Further string properties.

    Raises:
        SkillError: A field breaks a rule; the message names the field and the rule.

    Example:
        >>> SkillFrontmatter(name="pdf-tools", description="Fill and merge PDF files.").name
        'pdf-tools'
    """

    name: str
    description: str
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: list[str] | None = None
    metadata: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_name(self.name)
        _check_text("description", self.description, DESCRIPTION_MAX_LENGTH)
        if self.license is not None:
            _check_text("license", self.license, None)
        if self.compatibility is not None:
            _check_text("compatibility", self.compatibility, COMPATIBILITY_MAX_LENGTH)
        if self.allowed_tools is not None:
            tools: Any = self.allowed_tools
            if isinstance(tools, str) or not all(isinstance(t, str) and t for t in tools):
                raise SkillError(
                    "skill field 'allowed_tools' (allowed-tools in SKILL.md) must be a list of "
                    "tool names"
                )
            self.allowed_tools = list(cast("Sequence[str]", tools))
        metadata: Any = self.metadata
        if not isinstance(metadata, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str)
            for k, v in cast("Mapping[Any, Any]", metadata).items()
        ):
            raise SkillError("skill field 'metadata' must map strings to strings")
        self.metadata = dict(cast("Mapping[str, str]", metadata))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> SkillFrontmatter:
        """Frontmatter from the fields of a SKILL.md header (`allowed-tools` spelled so).

        `allowed-tools` may be a space-separated string or a list; metadata values that are
        numbers or booleans become strings.

        Raises:
            SkillError: A field is unknown, missing or breaks a rule.
        """
        unknown = sorted(str(k) for k in data if k not in _FIELDS)
        if unknown:
            raise SkillError(
                f"unknown skill frontmatter field(s) {', '.join(map(repr, unknown))}; "
                f"the fields are {', '.join(_FIELDS)} (put custom values under 'metadata')"
            )
        for required in ("name", "description"):
            if data.get(required) is None:
                raise SkillError(f"skill frontmatter needs a '{required}' field")
        return cls(
            name=data["name"],
            description=data["description"],
            license=data.get("license"),
            compatibility=data.get("compatibility"),
            allowed_tools=_allowed_tools(data.get("allowed-tools")),
            metadata=_metadata(data.get("metadata")),
        )


def parse_skill_markdown(text: str) -> tuple[SkillFrontmatter, str]:
    """The frontmatter and the body (the instructions) of a SKILL.md document.

    Raises:
        SkillError: The document has no `---` delimited YAML header, or the header is invalid.
    """
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise SkillError("SKILL.md must start with a '---' line opening its YAML frontmatter")
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise SkillError("SKILL.md frontmatter is not closed by a '---' line")
    try:
        data: object = yaml.safe_load("".join(lines[1:end]))
    except yaml.YAMLError as error:
        raise SkillError(f"SKILL.md frontmatter is not valid YAML: {error}") from None
    except RecursionError:
        raise SkillError("SKILL.md frontmatter is nested too deeply to read; flatten it") from None
    if not isinstance(data, dict):
        raise SkillError("SKILL.md frontmatter must be a YAML mapping of fields")
    frontmatter = SkillFrontmatter.from_mapping(cast("dict[str, object]", data))
    return frontmatter, "".join(lines[end + 1 :]).strip()


def _check_name(name: object) -> None:
    if not isinstance(name, str) or not name:
        raise SkillError("skill field 'name' must be a non-empty string")
    if len(name) > NAME_MAX_LENGTH:
        raise SkillError(
            f"skill field 'name' must be at most {NAME_MAX_LENGTH} characters, "
            f"{name[:20]!r}... has {len(name)}"
        )
    bad = sorted(set(name) - _NAME_CHARACTERS)
    if bad:
        raise SkillError(
            f"skill field 'name' {name!r} may only hold lowercase letters, digits and "
            f"hyphens, not {''.join(bad)!r}"
        )
    if name.startswith("-") or name.endswith("-"):
        raise SkillError(f"skill field 'name' {name!r} must not start or end with a hyphen")
    if "--" in name:
        raise SkillError(f"skill field 'name' {name!r} must not hold two hyphens in a row")


def _check_text(field_name: str, value: object, max_length: int | None) -> None:
    if not isinstance(value, str) or not value.strip():
        raise SkillError(f"skill field '{field_name}' must be a non-empty string")
    if max_length is not None and len(value) > max_length:
        raise SkillError(
            f"skill field '{field_name}' must be at most {max_length} characters, not {len(value)}"
        )


def _allowed_tools(value: object) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return cast("list[str]", value)
    raise SkillError("skill field 'allowed-tools' must be a space-separated string or a list")


def _metadata(value: object) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SkillError("skill field 'metadata' must be a mapping of strings")
    result: dict[str, str] = {}
    for key, item in cast("dict[object, object]", value).items():
        if isinstance(item, bool):
            item = str(item).lower()
        elif isinstance(item, (int, float)):
            item = str(item)
        if not isinstance(item, str):
            raise SkillError(f"skill metadata {key!r} must be a string, not {type(item).__name__}")
        result[str(key)] = item
    return result
