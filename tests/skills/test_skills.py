from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentry.skills import (
    ClassSkill,
    FileSkill,
    InlineSkill,
    Skill,
    SkillError,
    SkillFrontmatter,
    SkillResource,
    SkillScript,
)

from .helpers import write_skill

FRONTMATTER = SkillFrontmatter(name="units", description="Convert units.")


# region resources and scripts


async def test_a_static_resource_reads_its_content() -> None:
    assert await SkillResource("table", content="1 mi = 1.609 km").read() == "1 mi = 1.609 km"


async def test_a_sync_function_resource_is_called_on_each_read() -> None:
    reads: list[int] = []

    def make() -> str:
        reads.append(1)
        return f"read {len(reads)}"

    resource = SkillResource("counter", function=make)
    assert [await resource.read(), await resource.read()] == ["read 1", "read 2"]


async def test_an_async_function_resource_is_awaited() -> None:
    async def make() -> dict[str, float]:
        return {"mi-km": 1.609}

    assert await SkillResource("table", function=make).read() == {"mi-km": 1.609}


def test_a_resource_needs_exactly_one_source() -> None:
    with pytest.raises(SkillError, match=r"exactly one of content= .* and function="):
        SkillResource("table")
    with pytest.raises(SkillError, match="exactly one of content="):
        SkillResource("table", content="x", function=lambda: "y")
    with pytest.raises(SkillError, match="non-empty name"):
        SkillResource("", content="x")


def test_a_script_needs_exactly_one_of_function_and_path() -> None:
    with pytest.raises(SkillError, match=r"exactly one of function= .* and path="):
        SkillScript("convert")
    with pytest.raises(SkillError, match="exactly one of function="):
        SkillScript("convert", function=lambda: 1, path="scripts/convert.py")
    with pytest.raises(SkillError, match="non-empty name"):
        SkillScript("", function=lambda: 1)


async def test_an_inline_script_gets_positional_or_named_arguments() -> None:
    def scale(value: str, factor: str = "2") -> float:
        return float(value) * float(factor)

    script = SkillScript("scale", function=scale)
    assert script.is_inline
    assert await script.call(["3"]) == 6.0
    assert await script.call(["3", "10"]) == 30.0
    assert await script.call({"value": "3", "factor": "4"}) == 12.0


async def test_an_async_inline_script_is_awaited() -> None:
    async def hello() -> str:
        return "hi"

    assert await SkillScript("hello", function=hello).call() == "hi"


async def test_a_file_script_is_not_called_in_process() -> None:
    script = SkillScript("convert", path="scripts/convert.py")
    assert not script.is_inline
    assert script.path == Path("scripts/convert.py")
    with pytest.raises(SkillError, match="is a file; run it with a script runner"):
        await script.call([])


# endregion

# region inline skills


def test_an_inline_skill_holds_its_parts() -> None:
    resource = SkillResource("table", content="...")
    script = SkillScript("convert", function=lambda: 1)
    skill = InlineSkill(
        frontmatter=FRONTMATTER, content="Convert.", resources=[resource], scripts=[script]
    )
    assert isinstance(skill, Skill)
    assert (skill.name, skill.description, skill.content) == ("units", "Convert units.", "Convert.")
    assert skill.get_resource("table") is resource
    assert skill.get_script("convert") is script
    assert skill.get_resource("nope") is None
    assert skill.directory is None


def test_an_inline_skill_refuses_two_parts_with_one_name() -> None:
    with pytest.raises(SkillError, match="skill 'units' has two resources named 'table'"):
        InlineSkill(
            frontmatter=FRONTMATTER,
            content="x",
            resources=[SkillResource("table", content="a"), SkillResource("table", content="b")],
        )


def test_skill_is_abstract() -> None:
    with pytest.raises(TypeError, match="Skill is abstract: use InlineSkill"):
        Skill()


# endregion

# region class skills


class Units(ClassSkill):
    """Read `factors`, then run `convert`."""

    frontmatter = SkillFrontmatter(name="units", description="Convert units.")

    def __init__(self, factor: float = 1.609) -> None:
        super().__init__()
        self.factor = factor

    @ClassSkill.resource
    def factors(self) -> str:
        """The conversion factors.

        More detail that is not part of the summary.
        """
        return f"1 mi = {self.factor} km"

    @ClassSkill.resource(name="notes/rounding", description="How to round.")
    async def rounding(self) -> str:
        return "Two decimals."

    @ClassSkill.script
    def convert(self, miles: str) -> float:
        """Miles to kilometres."""
        return round(float(miles) * self.factor, 2)

    @ClassSkill.script(name="describe")
    async def describe_conversion(self, unit: str = "mi") -> str:
        return f"converting from {unit}"

    def helper(self) -> str:
        return "not a resource"


async def test_a_class_skill_collects_its_decorated_methods() -> None:
    skill = Units(factor=2.0)
    assert skill.name == "units"
    assert skill.content == "Read `factors`, then run `convert`."
    assert [(r.name, r.description) for r in skill.resources] == [
        ("factors", "The conversion factors."),
        ("notes/rounding", "How to round."),
    ]
    assert [(s.name, s.description) for s in skill.scripts] == [
        ("convert", "Miles to kilometres."),
        ("describe", None),
    ]
    assert await skill.resources[0].read() == "1 mi = 2.0 km"
    assert await skill.resources[1].read() == "Two decimals."
    assert await skill.scripts[0].call(["3"]) == 6.0
    assert await skill.scripts[1].call({"unit": "km"}) == "converting from km"


def test_a_subclass_inherits_and_overrides_members() -> None:
    class MoreUnits(Units):
        @ClassSkill.script
        def convert(self, miles: str) -> float:
            """Overridden."""
            return 0.0

        factors = None  # type: ignore[assignment]  # no longer a resource

    skill = MoreUnits()
    assert [r.name for r in skill.resources] == ["notes/rounding"]
    assert [(s.name, s.description) for s in skill.scripts] == [
        ("convert", "Overridden."),
        ("describe", None),
    ]


def test_constructor_arguments_replace_the_class_frontmatter_and_content() -> None:
    other = SkillFrontmatter(name="other", description="Other.")
    skill = ClassSkill.__new__(Units)
    ClassSkill.__init__(skill, frontmatter=other, content="Custom.")
    assert (skill.name, skill.content) == ("other", "Custom.")
    assert Units().name == "units"


def test_content_may_be_a_class_attribute() -> None:
    class Plain(ClassSkill):
        frontmatter = FRONTMATTER
        content = "From the attribute."

    assert Plain().content == "From the attribute."


def test_a_class_skill_without_frontmatter_or_instructions_is_refused() -> None:
    class NoFrontmatter(ClassSkill):
        """Instructions."""

    class NoInstructions(ClassSkill):
        frontmatter = FRONTMATTER

    with pytest.raises(SkillError, match="needs a frontmatter"):
        NoFrontmatter()
    with pytest.raises(SkillError, match="has no instructions"):
        NoInstructions()


def test_a_class_skill_refuses_two_scripts_with_one_name() -> None:
    class Clash(ClassSkill):
        """X."""

        frontmatter = FRONTMATTER

        @ClassSkill.script(name="run")
        def first(self) -> None: ...

        @ClassSkill.script(name="run")
        def second(self) -> None: ...

    with pytest.raises(SkillError, match="two scripts named 'run'"):
        Clash()


# endregion

# region file skills


def test_a_file_skill_reads_its_directory(tmp_path: Path) -> None:
    directory = write_skill(
        tmp_path,
        "units",
        description="Convert units.",
        body="# Units\nRead the factors.",
        files={
            "references/factors.md": "1 mi = 1.609 km",
            "references/deep/more.md": "more",
            "assets/template.txt": "VALUE UNIT",
            "scripts/convert.py": "print(1)",
            "scripts/.hidden.py": "",
            "scripts/__pycache__/convert.cpython-311.pyc": "",
            "other/ignored.md": "",
        },
    )
    skill = FileSkill(directory)
    assert skill.directory == directory.resolve()
    assert skill.content == "# Units\nRead the factors."
    assert [r.name for r in skill.resources] == [
        "references/deep/more.md",
        "references/factors.md",
        "assets/template.txt",
    ]
    assert [s.name for s in skill.scripts] == ["scripts/convert.py"]
    assert skill.scripts[0].path == Path("scripts/convert.py")


async def test_file_resources_are_read_when_asked(tmp_path: Path) -> None:
    directory = write_skill(tmp_path, "units", files={"references/factors.md": "old"})
    skill = FileSkill(directory)
    (directory / "references/factors.md").write_text("new", encoding="utf-8")
    resource = skill.get_resource("references/factors.md")
    assert resource is not None
    assert await resource.read() == "new"


async def test_a_binary_asset_is_described_not_decoded(tmp_path: Path) -> None:
    directory = write_skill(tmp_path, "units")
    (directory / "assets").mkdir()
    (directory / "assets/logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    resource = FileSkill(directory).get_resource("assets/logo.png")
    assert resource is not None
    assert await resource.read() == (
        "[assets/logo.png is a binary file of 10 bytes; it cannot be shown as text]"
    )


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need privileges on Windows")
def test_a_resource_linking_outside_the_skill_is_left_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password", encoding="utf-8")
    directory = write_skill(tmp_path / "skills", "units", files={"references/ok.md": "ok"})
    (directory / "references/leak.md").symlink_to(secret)
    with caplog.at_level("WARNING", logger="agentry.skills"):
        skill = FileSkill(directory)
    assert [r.name for r in skill.resources] == ["references/ok.md"]
    assert "references/leak.md" in caplog.text
    assert "it is a symbolic link" in caplog.text


def test_a_file_skill_name_must_match_its_directory(tmp_path: Path) -> None:
    directory = write_skill(tmp_path, "units", header="name: other\ndescription: d\n")
    with pytest.raises(SkillError, match="'other' must match its directory name 'units'"):
        FileSkill(directory)


def test_a_file_skill_needs_its_skill_file(tmp_path: Path) -> None:
    with pytest.raises(SkillError, match="does not exist"):
        FileSkill(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SkillError, match=r"has no SKILL\.md file"):
        FileSkill(tmp_path / "empty")


def test_a_file_skill_may_be_given_its_frontmatter(tmp_path: Path) -> None:
    (tmp_path / "units").mkdir()
    skill = FileSkill(tmp_path / "units", frontmatter=FRONTMATTER, content="Convert.")
    assert (skill.name, skill.content) == ("units", "Convert.")
    with pytest.raises(SkillError, match="needs content= too"):
        FileSkill(tmp_path / "units", frontmatter=FRONTMATTER)


# endregion
