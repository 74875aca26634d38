from typing import Any

import pytest
from pydantic import BaseModel

from agentry import (
    Agent,
    AgentSession,
    ContextProvider,
    Message,
    SessionContext,
    register_state_type,
    tool,
)
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import SerializationError, SessionError
from agentry.protocols import SupportsAgentRun


async def test_a_session_survives_to_dict_and_keeps_its_history() -> None:
    client = ScriptedChatClient(["Hello Ada.", "You are Ada."])
    agent = Agent(client=client)
    session = agent.create_session()
    await agent.run("I am Ada.", session=session)
    restored = AgentSession.from_dict(session.to_dict())
    assert restored.session_id == session.session_id
    await agent.run("Who am I?", session=restored)
    assert [m.text for m in client.calls[1].messages] == ["I am Ada.", "Hello Ada.", "Who am I?"]


def test_a_session_from_a_newer_version_is_refused_clearly() -> None:
    data = AgentSession().to_dict()
    data["version"] = 99
    with pytest.raises(SessionError, match="newer than this agentry understands"):
        AgentSession.from_dict(data)


def test_malformed_session_dicts_are_refused() -> None:
    with pytest.raises(SessionError, match="field 'session_id' is missing"):
        AgentSession.from_dict({"version": 1, "state": {}})
    with pytest.raises(SessionError, match="non-empty 'session_id'"):
        AgentSession.from_dict({"version": 1, "session_id": "", "state": {}})
    with pytest.raises(SessionError, match="field 'state' should be a valid dictionary"):
        AgentSession.from_dict({"session_id": "s", "state": [1]})


def test_unknown_state_types_are_refused_both_ways() -> None:
    session = AgentSession(state={"when": object()})
    with pytest.raises(SerializationError, match=r"state\.when holds a object"):
        session.to_dict()
    forged = {"session_id": "s", "state": {"x": {"__agentry_type__": "os.system", "value": "rm"}}}
    with pytest.raises(SessionError, match=r"unregistered type 'os\.system'"):
        AgentSession.from_dict(forged)


class Preferences(BaseModel):
    colour: str


def test_registered_types_round_trip() -> None:
    register_state_type(Preferences)
    session = AgentSession(state={"prefs": Preferences(colour="blue"), "n": [1, {"a": None}]})
    restored = AgentSession.from_dict(session.to_dict())
    assert restored.state == {"prefs": Preferences(colour="blue"), "n": [1, {"a": None}]}


@tool
def clock() -> str:
    """The time."""
    return "09:00"


class ClockProvider(ContextProvider):
    async def before_run(
        self, *, agent: Any, session: AgentSession, context: SessionContext, state: dict[str, Any]
    ) -> None:
        context.extend_instructions(self.source_id, "Mention the time.")
        context.extend_messages(self.source_id, [Message("user", ["(it is morning)"])])
        context.extend_tools(self.source_id, [clock])
        state["runs"] = state.get("runs", 0) + 1

    async def after_run(
        self, *, agent: Any, session: AgentSession, context: SessionContext, state: dict[str, Any]
    ) -> None:
        assert context.response is not None
        state["last_answer"] = context.response.text


async def test_context_providers_add_instructions_messages_and_tools() -> None:
    client = ScriptedChatClient(["Good morning."])
    agent = Agent(client=client, instructions="Be kind.", context_providers=[ClockProvider()])
    session = agent.create_session()
    await agent.run("Hi", session=session)
    call = client.calls[0]
    assert call.messages[0].text == "Be kind.\nMention the time."
    assert [m.text for m in call.messages[1:]] == ["(it is morning)", "Hi"]
    assert call.tool_names == ["clock"]
    assert session.state["ClockProvider"] == {"runs": 1, "last_answer": "Good morning."}


_BAD_STATES: list[tuple[dict[str, Any], str]] = [
    ({"in_memory": "x"}, r"'in_memory' \(an in-memory history\) must be an object"),
    (
        {"in_memory": {"messages": [{"role": "user", "contents": []}]}},
        "must hold a list of messages",
    ),
    ({"in_memory": {"messages": "hi"}}, "must hold a list of messages"),
    ({"x": {"__agentry_type__": "message"}}, r"state\.x: the message stored there has no"),
    ({"x": {"__agentry_type__": ["message"]}}, r"state\.x holds an unregistered type"),
    (
        {"x": [{"__agentry_type__": "message", "value": {"role": "user", "contents": 5}}]},
        r"state\.x\[0\]: the message stored there cannot be restored: .*'contents'",
    ),
]


@pytest.mark.parametrize(("state", "problem"), _BAD_STATES)
def test_malformed_session_state_is_refused_on_restore(state: dict[str, Any], problem: str) -> None:
    with pytest.raises(SessionError, match=problem):
        AgentSession.from_dict({"session_id": "s", "state": state})


def test_wrongly_typed_session_fields_are_refused() -> None:
    with pytest.raises(SessionError, match="field 'session_id' should be a valid string"):
        AgentSession.from_dict({"session_id": 5})
    with pytest.raises(SessionError, match="field 'service_session_id'"):
        AgentSession.from_dict({"session_id": "s", "service_session_id": ["x"]})


def test_session_state_nested_too_deeply_is_a_session_error() -> None:
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(SessionError, match="nested too deeply"):
        AgentSession.from_dict({"session_id": "s", "state": {"x": deep}})


async def test_a_damaged_in_memory_history_stops_the_run_with_a_session_error() -> None:
    agent = Agent(client=ScriptedChatClient(["never sent"]))
    session = agent.create_session()
    session.state["in_memory"] = {"messages": "not a list"}
    with pytest.raises(SessionError, match="must hold a list of messages"):
        await agent.run("hi", session=session)


async def test_a_run_without_a_session_draws_no_random_id_unless_one_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_random_id() -> object:
        raise AssertionError("a random session id was drawn")

    agent = Agent(client=ScriptedChatClient(["Hi."]))
    monkeypatch.setattr("uuid.uuid4", no_random_id)
    assert (await agent.run("Hello")).text == "Hi."


async def test_a_session_id_drawn_when_read_stays_the_same_and_providers_see_it() -> None:
    seen: list[str | None] = []

    class Recorder(ContextProvider):
        async def before_run(
            self,
            *,
            agent: SupportsAgentRun,
            session: AgentSession,
            context: SessionContext,
            state: dict[str, object],
        ) -> None:
            seen.append(context.session_id)
            seen.append(session.session_id)

    session = AgentSession()
    first = session.session_id
    assert len(first) == 32
    assert session.session_id == first
    assert AgentSession.from_dict(session.to_dict()).session_id == first
    agent = Agent(client=ScriptedChatClient(["Hi.", "Hi again."]), context_providers=[Recorder()])
    await agent.run("Hello", session=session)
    await agent.run("Hello")  # a throwaway session: its id is drawn when a provider reads it
    assert seen[0] == seen[1] == first
    assert seen[2] == seen[3]
    assert seen[2] not in (None, first)
    assert AgentSession(session_id="mine").session_id == "mine"
