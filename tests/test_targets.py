"""`agentry.targets`: the agent or workflow a `MODULE:OBJECT` reference names."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentry import Agent
from agentry.targets import TargetError, load_agent, load_target


def test_a_reference_without_a_colon_is_a_malformed_target() -> None:
    with pytest.raises(TargetError, match="name an object as MODULE:OBJECT") as raised:
        load_target("json")
    assert raised.value.malformed


def test_a_missing_object_names_what_the_module_defines() -> None:
    with pytest.raises(TargetError, match="'json' has no 'nothing'; it defines: ") as raised:
        load_target("json:nothing")
    assert not raised.value.malformed


def test_a_file_reference_loads_the_agent_a_factory_returns(tmp_path: Path) -> None:
    (tmp_path / "assistant.py").write_text(
        "from agentry import Agent\n"
        "from agentry.clients.scripted import ScriptedChatClient\n"
        "def make_agent():\n"
        "    return Agent(name='helper', client=ScriptedChatClient(['hi']))\n"
    )
    agent = load_agent(f"{tmp_path / 'assistant.py'}:make_agent")
    assert isinstance(agent, Agent)
    assert agent.name == "helper"


def test_an_object_that_is_not_an_agent_is_refused() -> None:
    with pytest.raises(TargetError, match="json:JSONDecodeError is a type, not an agent"):
        load_agent("json:JSONDecodeError")
