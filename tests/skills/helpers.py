"""Writing skill directories for tests."""

from __future__ import annotations

from pathlib import Path


def write_skill(
    root: Path,
    name: str,
    *,
    description: str = "Does a thing. Use it for things.",
    body: str = "Do the thing.",
    header: str | None = None,
    files: dict[str, str] | None = None,
) -> Path:
    """A skill directory `root/name` with SKILL.md and `files` (relative path -> text)."""
    directory = root / name
    directory.mkdir(parents=True)
    if header is None:
        header = f"name: {name}\ndescription: {description}\n"
    (directory / "SKILL.md").write_text(f"---\n{header}---\n{body}\n", encoding="utf-8")
    for relative, text in (files or {}).items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return directory
