from __future__ import annotations

from typing import Any

import pytest

from agentry.errors import AgentryError
from agentry.skills import SkillError, SkillFrontmatter, parse_skill_markdown


def _frontmatter(**fields: Any) -> SkillFrontmatter:
    values: dict[str, Any] = {"name": "pdf-tools", "description": "Work with PDF files."}
    values.update(fields)
    return SkillFrontmatter(**values)


def test_a_valid_frontmatter_keeps_every_field() -> None:
    frontmatter = _frontmatter(
        license="MIT",
        compatibility="Needs poppler.",
        allowed_tools=["read_file"],
        metadata={"author": "ada"},
    )
    assert frontmatter.name == "pdf-tools"
    assert frontmatter.license == "MIT"
    assert frontmatter.compatibility == "Needs poppler."
    assert frontmatter.allowed_tools == ["read_file"]
    assert frontmatter.metadata == {"author": "ada"}


@pytest.mark.parametrize("name", ["a", "pdf", "pdf-tools-2", "x" * 64, "9lives", "a-b-c"])
def test_valid_names(name: str) -> None:
    assert _frontmatter(name=name).name == name


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("", "non-empty"),
        ("x" * 65, "at most 64"),
        ("PDF-tools", "lowercase letters, digits and hyphens"),
        ("pdf_tools", "lowercase letters, digits and hyphens"),
        ("pdf tools", "lowercase letters, digits and hyphens"),
        ("-pdf", "start or end with a hyphen"),
        ("pdf-", "start or end with a hyphen"),
        ("pdf--tools", "two hyphens in a row"),
    ],
)
def test_invalid_names_say_which_rule_they_break(name: str, rule: str) -> None:
    with pytest.raises(SkillError, match="'name'") as caught:
        _frontmatter(name=name)
    assert rule in str(caught.value)


def test_a_name_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(SkillError, match="'name' must be a non-empty string"):
        _frontmatter(name=42)


@pytest.mark.parametrize("description", ["", "   "])
def test_an_empty_description_is_refused(description: str) -> None:
    with pytest.raises(SkillError, match="'description' must be a non-empty string"):
        _frontmatter(description=description)


def test_the_description_is_at_most_1024_characters() -> None:
    assert len(_frontmatter(description="d" * 1024).description) == 1024
    with pytest.raises(SkillError, match="'description' must be at most 1024 characters, not 1025"):
        _frontmatter(description="d" * 1025)


def test_compatibility_is_at_most_500_characters() -> None:
    assert _frontmatter(compatibility="c" * 500).compatibility == "c" * 500
    with pytest.raises(SkillError, match="'compatibility' must be at most 500"):
        _frontmatter(compatibility="c" * 501)
    with pytest.raises(SkillError, match="'compatibility' must be a non-empty string"):
        _frontmatter(compatibility="")


def test_license_must_be_text() -> None:
    with pytest.raises(SkillError, match="'license'"):
        _frontmatter(license=3)


def test_allowed_tools_must_be_a_list_of_names() -> None:
    with pytest.raises(SkillError, match=r"'allowed_tools' .* must be a list of tool names"):
        _frontmatter(allowed_tools="read_file")
    with pytest.raises(SkillError, match=r"'allowed_tools' .* must be a list of tool names"):
        _frontmatter(allowed_tools=["read_file", 3])


def test_metadata_must_map_strings_to_strings() -> None:
    with pytest.raises(SkillError, match="'metadata' must map strings to strings"):
        _frontmatter(metadata={"version": 1})
    with pytest.raises(SkillError, match="'metadata' must map strings to strings"):
        _frontmatter(metadata=["a"])


def test_assignments_after_construction_are_not_checked() -> None:
    frontmatter = _frontmatter()
    frontmatter.name = "Not Valid"
    assert frontmatter.name == "Not Valid"


def test_skill_errors_are_agentry_value_errors() -> None:
    with pytest.raises(AgentryError):
        _frontmatter(name="")
    with pytest.raises(ValueError, match="name"):
        _frontmatter(name="")


def test_parsing_a_skill_document() -> None:
    frontmatter, body = parse_skill_markdown(
        "---\n"
        "name: pdf-tools\n"
        "description: Work with PDF files.\n"
        "license: Apache-2.0\n"
        "compatibility: Needs poppler.\n"
        "allowed-tools: Bash(pdftotext:*) Read\n"
        "metadata:\n"
        "  version: 1.0\n"
        "  stable: true\n"
        "  author: ada\n"
        "---\n"
        "\n"
        "# PDF tools\n"
        "Use pdftotext.\n"
    )
    assert frontmatter == SkillFrontmatter(
        name="pdf-tools",
        description="Work with PDF files.",
        license="Apache-2.0",
        compatibility="Needs poppler.",
        allowed_tools=["Bash(pdftotext:*)", "Read"],
        metadata={"version": "1.0", "stable": "true", "author": "ada"},
    )
    assert body == "# PDF tools\nUse pdftotext."


def test_allowed_tools_may_be_a_yaml_list() -> None:
    frontmatter, _ = parse_skill_markdown(
        "---\nname: a\ndescription: b\nallowed-tools:\n  - Read\n  - Write\n---\n"
    )
    assert frontmatter.allowed_tools == ["Read", "Write"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: a\n", "must start with a '---' line"),
        ("---\nname: a\ndescription: b\n", "not closed by a '---' line"),
        ("---\nname: [a\n---\n", "not valid YAML"),
        ("---\n- a\n- b\n---\n", "must be a YAML mapping"),
        ("---\ndescription: b\n---\n", "needs a 'name' field"),
        ("---\nname: a\n---\n", "needs a 'description' field"),
        ("---\nname: a\ndescription: b\nversion: 2\n---\n", "unknown skill frontmatter field"),
        ("---\nname: a\ndescription: b\nmetadata: [1]\n---\n", "'metadata' must be a mapping"),
        ("---\nname: a\ndescription: b\nmetadata:\n  x: [1]\n---\n", "metadata 'x' must be"),
        ("---\nname: a\ndescription: b\nallowed-tools: 3\n---\n", "'allowed-tools' must be"),
        ("---\nname: Bad\ndescription: b\n---\n", "'name' 'Bad' may only hold"),
    ],
)
def test_malformed_documents_are_refused_clearly(text: str, message: str) -> None:
    with pytest.raises(SkillError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse_skill_markdown(text)


def test_yaml_tags_that_build_objects_are_refused() -> None:
    with pytest.raises(SkillError, match="not valid YAML"):
        parse_skill_markdown("---\nname: !!python/object/apply:os.system ['true']\n---\n")
