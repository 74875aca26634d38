"""The spec's skills section: frontmatter, the three kinds of skill, resources, scripts,
runners and the provider's progressive disclosure."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agentry import (
    Agent,
    ClassSkill,
    ContextProvider,
    FileSkill,
    InlineSkill,
    Message,
    Skill,
    SkillFrontmatter,
    SkillResource,
    SkillScript,
    SkillScriptRunner,
    SkillsProvider,
)
from agentry.clients.scripted import ScriptedChatClient

CONVERTER_SKILL = """\
---
name: unit-converter
description: Convert miles to kilometres. Use it when a distance is in miles.
license: MIT
compatibility: Needs Python 3.10 or later.
allowed-tools: run_skill_script
metadata:
  author: the tests
  version: 2
---
Read `references/factors.md`, then run `scripts/convert.py MILES`.
"""

CONVERT_SCRIPT = """\
import sys
print(f"{float(sys.argv[1]) * 1.609:.1f} km")
"""


def skill_folder(root: Path) -> Path:
    folder = root / "unit-converter"
    (folder / "references").mkdir(parents=True)
    (folder / "scripts").mkdir()
    (folder / "SKILL.md").write_text(CONVERTER_SKILL)
    (folder / "references" / "factors.md").write_text("1 mile = 1.609 km")
    (folder / "scripts" / "convert.py").write_text(CONVERT_SCRIPT)
    return folder


def tool_results(messages: Sequence[Message]) -> list[Any]:
    return [c.result for m in messages for c in m.contents if c.type == "function_result"]


def test_frontmatter_validates_on_construction_and_stays_mutable() -> None:
    frontmatter = SkillFrontmatter(
        name="tipping",
        description="Work out restaurant tips.",
        license="MIT",
        compatibility="Any Python.",
        allowed_tools=["run_skill_script"],
        metadata={"author": "me"},
    )
    frontmatter.description = "Tips, and how much."  # plain attributes, not re-validated
    frontmatter.metadata["version"] = "2"

    assert frontmatter.allowed_tools == ["run_skill_script"]
    assert frontmatter.metadata == {"author": "me", "version": "2"}
    with pytest.raises(ValueError, match="name"):
        SkillFrontmatter(name="Not Valid!", description="x")
    with pytest.raises(ValueError, match="description"):
        SkillFrontmatter(name="tipping", description="")
    with pytest.raises(ValueError, match="compatibility"):
        SkillFrontmatter(name="tipping", description="x", compatibility="x" * 501)


def test_a_resource_and_a_script_hold_exactly_one_source() -> None:
    def tip() -> str:
        return "15%"

    with pytest.raises(ValueError, match="content"):
        SkillResource("customs")
    with pytest.raises(ValueError, match="content"):
        SkillResource("customs", content="Do not tip.", function=tip)
    with pytest.raises(ValueError, match="function"):
        SkillScript("tip")
    with pytest.raises(ValueError, match="function"):
        SkillScript("tip", function=tip, path="scripts/tip.py")


async def test_an_inline_skill_is_loaded_read_and_run_by_an_agent() -> None:
    def tip(amount: str, percent: str = "15") -> str:
        return f"{float(amount) * float(percent) / 100:.2f}"

    def customs() -> str:
        return "In Japan, do not tip."

    async def rates() -> str:
        return "USD/EUR 0.92"

    tipping = InlineSkill(
        frontmatter=SkillFrontmatter(name="tipping", description="Work out restaurant tips."),
        content="Read the customs, then run the tip script.",
        resources=[
            SkillResource("customs", function=customs),
            SkillResource("rates", function=rates, description="Today's exchange rates."),
            SkillResource("rule", content="Round up."),
        ],
        scripts=[SkillScript("tip", function=tip, description="tip(amount, percent=15)")],
    )
    provider = SkillsProvider(skills=[tipping], require_script_approval=False)
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("load_skill", {"name": "tipping"}),
            ScriptedChatClient.function_calls(
                [
                    ("read_skill_resource", {"skill": "tipping", "resource": name}, None)
                    for name in ("customs", "rates", "rule")
                ]
            ),
            ScriptedChatClient.function_call(
                "run_skill_script", {"skill": "tipping", "script": "tip", "args": ["80", "10"]}
            ),
            "Tip 8.00.",
        ]
    )
    agent = Agent(client=client, context_providers=[provider])
    response = await agent.run("How much do I tip on 80?")

    assert isinstance(provider, ContextProvider)
    assert tipping.frontmatter.name == "tipping"
    assert "- tipping: Work out restaurant tips." in client.calls[0].messages[0].text
    assert client.calls[0].tool_names == ["load_skill", "read_skill_resource", "run_skill_script"]
    loaded, *read, tipped = tool_results(response.messages)
    assert loaded.startswith("Read the customs, then run the tip script.")
    assert "rates: Today's exchange rates." in loaded
    assert read == ["In Japan, do not tip.", "USD/EUR 0.92", "Round up."]
    assert tipped == "8.00"


async def test_file_skills_are_discovered_from_skill_md_and_their_scripts_run(
    tmp_path: Path,
) -> None:
    skill_folder(tmp_path / "skills")
    provider = SkillsProvider(tmp_path / "skills")
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("load_skill", {"name": "unit-converter"}),
            ScriptedChatClient.function_call(
                "read_skill_resource",
                {"skill": "unit-converter", "resource": "references/factors.md"},
            ),
            ScriptedChatClient.function_call(
                "run_skill_script",
                {"skill": "unit-converter", "script": "scripts/convert.py", "args": ["26.2"]},
            ),
            "42.2 km.",
        ]
    )
    agent = Agent(client=client, context_providers=[provider])
    session = agent.create_session()
    response = await agent.run("A marathon in km?", session=session)
    while response.user_input_requests:  # running a script waits for approval
        answers = [
            r.to_function_approval_response(approved=True) for r in response.user_input_requests
        ]
        response = await agent.run(Message("user", answers), session=session)

    skill = provider.skills["unit-converter"]
    assert isinstance(skill, FileSkill)
    assert isinstance(provider.script_runner, SkillScriptRunner)
    assert skill.frontmatter.license == "MIT"
    assert skill.frontmatter.allowed_tools == ["run_skill_script"]
    assert skill.frontmatter.metadata == {"author": "the tests", "version": "2"}
    assert response.text == "42.2 km."
    results = tool_results(client.calls[-1].messages)
    assert results[1] == "1 mile = 1.609 km"
    assert (results[2].exit_code, results[2].stdout) == (0, "42.2 km\n")


async def test_a_file_skill_built_directly_takes_frontmatter_and_a_custom_runner(
    tmp_path: Path,
) -> None:
    folder = skill_folder(tmp_path)
    ran: list[tuple[str, str, list[str]]] = []

    async def dry_run(skill: Skill, script: SkillScript, args: Sequence[str]) -> str:
        ran.append((skill.name, script.name, list(args)))
        return f"would run {script.name}"

    skill = FileSkill(
        folder,
        frontmatter=SkillFrontmatter(name="unit-converter", description="Convert units."),
        content="Run scripts/convert.py.",
    )
    assert isinstance(dry_run, SkillScriptRunner)
    provider = SkillsProvider(skills=[skill], script_runner=dry_run, require_script_approval=False)
    result = await provider.run_skill_script("unit-converter", "scripts/convert.py", ["3"])

    assert skill.frontmatter.description == "Convert units."
    assert result == "would run scripts/convert.py"
    assert ran == [("unit-converter", "scripts/convert.py", ["3"])]


async def test_a_class_skill_takes_frontmatter_as_an_argument() -> None:
    class Glossary(ClassSkill):
        """Look terms up with the `define` script; `terms` lists them."""

        def __init__(self, terms: dict[str, str]) -> None:
            super().__init__(
                frontmatter=SkillFrontmatter(name="glossary", description="Define team jargon.")
            )
            self.terms = terms

        @ClassSkill.resource
        def terms_list(self) -> str:
            """Every term we define."""
            return ", ".join(sorted(self.terms))

        @ClassSkill.script(name="define")
        async def define(self, term: str) -> str:
            """The definition of one term."""
            return self.terms.get(term.lower(), f"no definition of {term!r}")

    glossary = Glossary({"lgtm": "looks good to me", "ptal": "please take a look"})
    provider = SkillsProvider(skills=[glossary], require_script_approval=False)

    assert glossary.frontmatter.name == "glossary"
    assert glossary.content == "Look terms up with the `define` script; `terms` lists them."
    assert await provider.read_skill_resource("glossary", "terms_list") == "lgtm, ptal"
    assert await provider.run_skill_script("glossary", "define", {"term": "LGTM"}) == (
        "looks good to me"
    )


async def test_a_skill_from_elsewhere_subclasses_the_abstract_skill() -> None:
    class DatabaseSkill(Skill):
        """A skill whose parts come from a table."""

        def __init__(self, row: dict[str, str]) -> None:
            self.frontmatter = SkillFrontmatter(name=row["name"], description=row["description"])
            self.content = row["body"]
            self._notes = row["notes"]

        @property
        def resources(self) -> Sequence[SkillResource]:
            return [SkillResource("notes", content=self._notes)]

        @property
        def scripts(self) -> Sequence[SkillScript]:
            return []

    with pytest.raises(TypeError, match="abstract"):
        Skill()
    row = {
        "name": "faq",
        "description": "Answer FAQs.",
        "body": "Read notes.",
        "notes": "Open 9-5.",
    }
    provider = SkillsProvider(skills=[DatabaseSkill(row)])

    assert [tool.name for tool in provider.tools] == ["load_skill", "read_skill_resource"]
    assert (await provider.load_skill("faq")).startswith("Read notes.")
    assert await provider.read_skill_resource("faq", "notes") == "Open 9-5."


async def test_an_inline_skill_delegates_its_file_script_to_the_runner(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "hello.py").write_text("import sys\nprint('hello', *sys.argv[1:])\n")
    greeter = InlineSkill(
        frontmatter=SkillFrontmatter(name="greeter", description="Greets people."),
        content="Run the hello script with the person's name.",
        scripts=[SkillScript("hello", path="scripts/hello.py")],
        directory=tmp_path,
    )
    provider = SkillsProvider(skills=[greeter], require_script_approval=False)
    result = await provider.run_skill_script("greeter", "hello", ["Ada"])

    assert (result.exit_code, result.stdout) == (0, "hello Ada\n")
