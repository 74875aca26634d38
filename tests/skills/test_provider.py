from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agentry import Agent, AgentResponse, Message
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ToolArgumentsError
from agentry.skills import (
    ClassSkill,
    InlineSkill,
    Skill,
    SkillError,
    SkillFrontmatter,
    SkillResource,
    SkillScript,
    SkillsProvider,
)
from agentry.tools._function_tool import tool_result_to_text

from .helpers import write_skill

call = ScriptedChatClient.function_call


def _inline(name: str, **parts: Any) -> InlineSkill:
    return InlineSkill(
        frontmatter=SkillFrontmatter(name=name, description=f"The {name} skill."),
        content=f"Instructions of {name}.",
        **parts,
    )


async def _run(agent: Agent, *inputs: Any, **kwargs: Any) -> AgentResponse:
    return await asyncio.wait_for(agent.run(*inputs, **kwargs), timeout=30)


def _results(client: ScriptedChatClient, index: int) -> list[Any]:
    """The function results the model was sent in call `index`."""
    return [c.result for c in client.calls[index].messages[-1].contents]


class Greeter(ClassSkill):
    """Greet people with the `greet` script."""

    frontmatter = SkillFrontmatter(name="greeter", description="Greet people warmly.")

    @ClassSkill.script
    def greet(self, name: str) -> str:
        """Greet someone."""
        return f"Hello, {name}!"


# region construction


def test_code_and_file_skills_are_offered_together(tmp_path: Path) -> None:
    write_skill(tmp_path, "from-file")
    provider = SkillsProvider(tmp_path, skills=[_inline("from-code"), Greeter()])
    assert list(provider.skills) == ["from-code", "greeter", "from-file"]


def test_several_directories_may_be_given(tmp_path: Path) -> None:
    write_skill(tmp_path / "a", "one")
    write_skill(tmp_path / "b", "two")
    provider = SkillsProvider([tmp_path / "a", str(tmp_path / "b")])
    assert list(provider.skills) == ["one", "two"]


def test_duplicate_code_skills_are_refused() -> None:
    with pytest.raises(SkillError, match=r"two skills are named 'same'.*must be unique"):
        SkillsProvider(skills=[_inline("same"), _inline("same")])


def test_a_file_skill_named_like_a_code_skill_is_refused(tmp_path: Path) -> None:
    directory = write_skill(tmp_path, "same")
    with pytest.raises(SkillError, match="two skills are named 'same'") as caught:
        SkillsProvider(tmp_path, skills=[_inline("same")])
    assert "the code-defined InlineSkill" in str(caught.value)
    assert str(directory.resolve()) in str(caught.value)


def test_two_file_skills_with_one_name_are_refused(tmp_path: Path) -> None:
    first = write_skill(tmp_path / "a", "same")
    second = write_skill(tmp_path / "b", "same")
    with pytest.raises(SkillError, match="two skills are named 'same'") as caught:
        SkillsProvider(tmp_path)
    assert str(first.resolve()) in str(caught.value)
    assert str(second.resolve()) in str(caught.value)


def test_invalid_file_skills_are_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_skill(tmp_path, "good")
    write_skill(tmp_path, "broken", header="name: broken\n")
    with caplog.at_level(logging.WARNING, logger="agentry.skills"):
        provider = SkillsProvider(tmp_path)
    assert list(provider.skills) == ["good"]
    assert str(tmp_path / "broken" / "SKILL.md") in caplog.text


def test_tools_are_offered_only_for_what_the_skills_have() -> None:
    def names(*skills: Skill) -> list[str]:
        return [t.name for t in SkillsProvider(skills=skills).tools]

    resource = SkillResource("r", content="x")
    script = SkillScript("s", function=lambda: 1)
    assert names() == []
    assert names(_inline("a")) == ["load_skill"]
    assert names(_inline("a", resources=[resource])) == ["load_skill", "read_skill_resource"]
    assert names(_inline("a"), _inline("b", scripts=[script])) == [
        "load_skill",
        "run_skill_script",
    ]


def test_running_scripts_needs_approval_unless_turned_off() -> None:
    skill = _inline("a", scripts=[SkillScript("s", function=lambda: 1)])
    modes = {t.name: t.approval_mode for t in SkillsProvider(skills=[skill]).tools}
    assert modes == {"load_skill": "never_require", "run_skill_script": "always_require"}
    relaxed = SkillsProvider(skills=[skill], require_script_approval=False)
    assert {t.approval_mode for t in relaxed.tools} == {"never_require"}


# endregion

# region a run


async def test_each_run_advertises_the_skills_and_adds_the_tools() -> None:
    client = ScriptedChatClient(["first", "second"])
    provider = SkillsProvider(skills=[_inline("alpha"), Greeter()])
    agent = Agent(client=client, instructions="Be kind.", context_providers=[provider])
    session = agent.create_session()
    await _run(agent, "hi", session=session)
    await _run(agent, "again", session=session)
    for recorded in client.calls:
        system = recorded.messages[0]
        assert system.role == "system"
        assert system.text.startswith("Be kind.\nYou have skills")
        assert "- alpha: The alpha skill.\n- greeter: Greet people warmly." in system.text
        assert "Instructions of alpha" not in system.text  # only loaded on demand
        assert recorded.tool_names == ["load_skill", "run_skill_script"]


async def test_a_provider_without_skills_adds_nothing() -> None:
    client = ScriptedChatClient(["ok"])
    agent = Agent(client=client, context_providers=[SkillsProvider()])
    await _run(agent, "hi")
    assert [m.role for m in client.calls[0].messages] == ["user"]
    assert client.calls[0].tool_names == []


async def test_the_model_loads_a_skill_and_reads_its_resources() -> None:
    async def live() -> str:
        return "computed now"

    skill = _inline(
        "alpha",
        resources=[
            SkillResource("static", content="fixed text", description="Some text."),
            SkillResource("sync", function=lambda: {"n": 1}),
            SkillResource("async", function=live),
        ],
        scripts=[SkillScript("s", function=lambda: 1, description="Returns one.")],
    )
    client = ScriptedChatClient(
        [
            call("load_skill", {"name": "alpha"}),
            ScriptedChatClient.function_calls(
                [
                    ("read_skill_resource", {"skill": "alpha", "resource": "static"}, "r1"),
                    ("read_skill_resource", {"skill": "alpha", "resource": "sync"}, "r2"),
                    ("read_skill_resource", {"skill": "alpha", "resource": "async"}, "r3"),
                ]
            ),
            "done",
        ]
    )
    agent = Agent(client=client, context_providers=[SkillsProvider(skills=[skill])])
    response = await _run(agent, "use alpha")
    assert response.text == "done"
    assert _results(client, 1) == [
        "Instructions of alpha.\n\n"
        "Resources (read with read_skill_resource):\n"
        "- static: Some text.\n- sync\n- async\n\n"
        "Scripts (run with run_skill_script):\n- s: Returns one."
    ]
    assert _results(client, 2) == ["fixed text", {"n": 1}, "computed now"]


async def test_unknown_skills_and_parts_are_explained_to_the_model() -> None:
    skill = _inline(
        "alpha",
        resources=[SkillResource("r", content="x")],
        scripts=[SkillScript("s", function=lambda: 1)],
    )
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_calls(
                [
                    ("load_skill", {"name": "beta"}, "c1"),
                    ("read_skill_resource", {"skill": "alpha", "resource": "nope"}, "c2"),
                ]
            ),
            "sorry",
        ]
    )
    agent = Agent(client=client, context_providers=[SkillsProvider(skills=[skill])])
    await _run(agent, "go")
    first, second = _results(client, 1)
    assert "there is no skill named 'beta'; the skills: alpha" in first
    assert "skill 'alpha' has no resource 'nope'; its resources: r" in second
    provider = SkillsProvider(skills=[skill])
    with pytest.raises(ToolArgumentsError, match="has no script 'nope'; its scripts: s"):
        await provider.run_skill_script("alpha", "nope")


async def test_an_inline_script_runs_after_approval() -> None:
    ran: list[str] = []

    def shout(word: str) -> str:
        ran.append(word)
        return word.upper()

    skill = _inline("alpha", scripts=[SkillScript("shout", function=shout)])
    client = ScriptedChatClient(
        [
            call("run_skill_script", {"skill": "alpha", "script": "shout", "args": ["hey"]}),
            "It said HEY.",
        ]
    )
    agent = Agent(client=client, context_providers=[SkillsProvider(skills=[skill])])
    session = agent.create_session()
    first = await _run(agent, "shout hey", session=session)
    assert ran == []
    (request,) = first.user_input_requests
    assert request.function_call is not None
    assert request.function_call.name == "run_skill_script"
    answer = request.to_function_approval_response(approved=True)
    second = await _run(agent, Message("user", [answer]), session=session)
    assert ran == ["hey"]
    assert second.text == "It said HEY."
    assert _results(client, 1) == ["HEY"]


async def test_a_rejected_script_does_not_run() -> None:
    ran: list[str] = []
    skill = _inline("alpha", scripts=[SkillScript("s", function=lambda: ran.append("x"))])
    client = ScriptedChatClient(
        [call("run_skill_script", {"skill": "alpha", "script": "s"}), "OK."]
    )
    agent = Agent(client=client, context_providers=[SkillsProvider(skills=[skill])])
    session = agent.create_session()
    first = await _run(agent, "run it", session=session)
    answer = first.user_input_requests[0].to_function_approval_response(approved=False)
    await _run(agent, Message("user", [answer]), session=session)
    assert ran == []
    assert "did not approve" in _results(client, 1)[0]


async def test_named_arguments_reach_a_class_skill_script_without_approval() -> None:
    client = ScriptedChatClient(
        [
            call(
                "run_skill_script",
                {"skill": "greeter", "script": "greet", "args": {"name": "Ada"}},
            ),
            "Greeted.",
        ]
    )
    provider = SkillsProvider(skills=[Greeter()], require_script_approval=False)
    agent = Agent(client=client, context_providers=[provider])
    response = await _run(agent, "greet Ada")
    assert response.user_input_requests == []
    assert _results(client, 1) == ["Hello, Ada!"]


async def test_file_scripts_go_to_the_script_runner_with_a_command_line(tmp_path: Path) -> None:
    seen: list[tuple[str, str, list[str]]] = []

    def runner(skill: Skill, script: SkillScript, args: Sequence[str]) -> str:
        seen.append((skill.name, script.name, list(args)))
        return "ran"

    write_skill(tmp_path, "files", files={"scripts/go.py": ""})
    provider = SkillsProvider(tmp_path, script_runner=runner)
    assert await provider.run_skill_script("files", "scripts/go.py", ["a", "1"]) == "ran"
    arguments = {"count": 3, "dry-run": True, "verbose": False, "tag": None}
    assert await provider.run_skill_script("files", "scripts/go.py", arguments) == "ran"
    assert await provider.run_skill_script("files", "scripts/go.py") == "ran"
    assert seen == [
        ("files", "scripts/go.py", ["a", "1"]),
        ("files", "scripts/go.py", ["--count", "3", "--dry-run"]),
        ("files", "scripts/go.py", []),
    ]


async def test_an_async_runner_is_awaited(tmp_path: Path) -> None:
    async def runner(skill: Skill, script: SkillScript, args: Sequence[str]) -> str:
        await asyncio.sleep(0)
        return f"async {script.name}"

    write_skill(tmp_path, "files", files={"scripts/go.py": ""})
    provider = SkillsProvider(tmp_path, script_runner=runner)
    assert await provider.run_skill_script("files", "scripts/go.py") == "async scripts/go.py"


async def test_a_refused_script_is_reported_to_the_model(tmp_path: Path) -> None:
    (tmp_path / "outside.py").write_text("print('escaped')\n", encoding="utf-8")
    skill = InlineSkill(
        frontmatter=SkillFrontmatter(name="sneaky", description="d"),
        content="c",
        scripts=[SkillScript("escape", path="../outside.py")],
        directory=tmp_path / "sneaky",
    )
    (tmp_path / "sneaky").mkdir()
    provider = SkillsProvider(skills=[skill], require_script_approval=False)
    result = await provider.run_skill_script("sneaky", "escape")
    assert result.startswith("Error: refusing script 'escape':")
    assert "leads outside the skill directory" in result


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges on Windows")
async def test_a_resource_turned_into_an_outside_link_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("password", encoding="utf-8")
    directory = write_skill(tmp_path / "skills", "files", files={"references/a.md": "fine"})
    provider = SkillsProvider(tmp_path / "skills")
    assert await provider.read_skill_resource("files", "references/a.md") == "fine"
    (directory / "references/a.md").unlink()
    (directory / "references/a.md").symlink_to(tmp_path / "secret.txt")
    result = await provider.read_skill_resource("files", "references/a.md")
    assert result.startswith("Error: cannot read resource 'references/a.md'")
    assert "is a symbolic link; links are not followed" in result
    assert "password" not in result


# endregion


async def test_an_agent_uses_a_skill_directory_end_to_end(tmp_path: Path) -> None:
    write_skill(
        tmp_path / "skills",
        "word-count",
        description="Count the words of a text. Use it when asked how long a text is.",
        body="Read references/rules.md, then run scripts/count.py with the text.",
        files={
            "references/rules.md": "Words are separated by whitespace.",
            "scripts/count.py": (
                "import sys\nwords = ' '.join(sys.argv[1:]).split()\nprint(f'{len(words)} words')\n"
            ),
        },
    )
    client = ScriptedChatClient(
        [
            call("load_skill", {"name": "word-count"}, call_id="load"),
            call(
                "read_skill_resource",
                {"skill": "word-count", "resource": "references/rules.md"},
                call_id="read",
            ),
            call(
                "run_skill_script",
                {
                    "skill": "word-count",
                    "script": "scripts/count.py",
                    "args": ["the quick brown fox"],
                },
                call_id="run",
            ),
            "The text has 4 words.",
        ]
    )
    agent = Agent(client=client, context_providers=[SkillsProvider(tmp_path / "skills")])
    session = agent.create_session()

    first = await _run(agent, "How many words in 'the quick brown fox'?", session=session)
    assert "- word-count: Count the words" in client.calls[0].messages[0].text
    assert _results(client, 1) == [
        "Read references/rules.md, then run scripts/count.py with the text.\n\n"
        "Resources (read with read_skill_resource):\n- references/rules.md\n\n"
        "Scripts (run with run_skill_script):\n- scripts/count.py"
    ]
    assert _results(client, 2) == ["Words are separated by whitespace."]
    (request,) = first.user_input_requests
    assert request.id == "run"
    assert client.remaining == 1  # paused: the script has not run

    answer = request.to_function_approval_response(approved=True)
    second = await _run(agent, Message("user", [answer]), session=session)
    assert second.text == "The text has 4 words."
    (result,) = _results(client, 3)
    assert result.to_dict() == {
        "exit_code": 0,
        "stdout": "4 words\n",
        "stderr": "",
        "timed_out": False,
        "truncated": False,
    }
    assert json.loads(tool_result_to_text(result))["stdout"] == "4 words\n"  # what a model reads


async def test_a_streamed_run_loads_skills_and_asks_before_a_script() -> None:
    skill = _inline("alpha", scripts=[SkillScript("s", function=lambda: "ran")])
    client = ScriptedChatClient(
        [
            call("load_skill", {"name": "alpha"}, call_id="load"),
            call("run_skill_script", {"skill": "alpha", "script": "s"}, call_id="run"),
        ]
    )
    agent = Agent(client=client, context_providers=[SkillsProvider(skills=[skill])])

    async def collect() -> list[Any]:
        stream = agent.run("go", stream=True, session=agent.create_session())
        return [c async for update in stream for c in update.contents]

    contents = await asyncio.wait_for(collect(), timeout=30)
    results = [c.result for c in contents if c.type == "function_result"]
    assert results[0].startswith("Instructions of alpha.")
    requests = [c for c in contents if c.type == "function_approval_request"]
    assert [r.id for r in requests] == ["run"]
