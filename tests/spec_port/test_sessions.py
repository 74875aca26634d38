"""Sessions, context providers and history providers, written for the spec's API."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentry import (
    Agent,
    AgentSession,
    ChatOptions,
    ContextProvider,
    FileHistoryProvider,
    HistoryProvider,
    InMemoryHistoryProvider,
    Message,
    SessionContext,
    SupportsAgentRun,
)
from agentry.clients.scripted import ScriptedChatClient


def echo_history(messages: list[Message], options: ChatOptions) -> str:
    """A scripted answer listing the texts the model was sent."""
    del options
    return " | ".join(m.text for m in messages)


async def test_a_session_carries_the_conversation_between_runs() -> None:
    agent = Agent(client=ScriptedChatClient(["Hello, Ada!", echo_history]))
    session = agent.create_session()
    await agent.run("I am Ada.", session=session)
    response = await agent.run("Who am I?", session=session)

    assert response.text == "I am Ada. | Hello, Ada! | Who am I?"
    restored = AgentSession.from_dict(json.loads(json.dumps(session.to_dict())))
    assert restored.session_id == session.session_id


async def test_in_memory_history_is_the_default_and_lives_in_the_session() -> None:
    history = InMemoryHistoryProvider()
    agent = Agent(client=ScriptedChatClient(["One.", echo_history]), context_providers=[history])
    session = AgentSession()
    await agent.run("First", session=session)
    response = await agent.run("Second", session=session)

    assert response.text == "First | One. | Second"
    stored = await history.get_messages(session.session_id, state=session.state[history.source_id])
    assert [m.text for m in stored] == ["First", "One.", "Second", response.text]


async def test_file_history_keeps_one_jsonl_file_per_session_one_message_a_line(
    tmp_path: Path,
) -> None:
    agent = Agent(
        client=ScriptedChatClient(["Noted.", echo_history, "Hi Bob."]),
        context_providers=[FileHistoryProvider(tmp_path)],
    )
    ada, bob = agent.create_session(), agent.create_session()
    await agent.run("I am Ada.", session=ada)
    await agent.run("Bob here.", session=bob)

    # A new agent over the same folder continues Ada's conversation from the file.
    later = Agent(
        client=ScriptedChatClient([echo_history]),
        context_providers=[FileHistoryProvider(tmp_path)],
    )
    response = await later.run("Who am I?", session=AgentSession(session_id=ada.session_id))

    assert response.text == "I am Ada. | Noted. | Who am I?"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"{ada.session_id}.jsonl", f"{bob.session_id}.jsonl"]
    )
    lines = (tmp_path / f"{ada.session_id}.jsonl").read_text().splitlines()
    assert [json.loads(line)["role"] for line in lines] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]


async def test_a_context_provider_adds_instructions_and_keeps_state() -> None:
    class UserPreferences(ContextProvider):
        async def before_run(
            self,
            *,
            agent: SupportsAgentRun,
            session: AgentSession,
            context: SessionContext,
            state: dict[str, Any],
        ) -> None:
            runs = state.get("runs", 0)
            context.extend_instructions(self.source_id, f"Run number {runs + 1}; use metric.")

        async def after_run(
            self,
            *,
            agent: SupportsAgentRun,
            session: AgentSession,
            context: SessionContext,
            state: dict[str, Any],
        ) -> None:
            state["runs"] = state.get("runs", 0) + 1
            state["last_answer"] = context.response.text if context.response else None

    client = ScriptedChatClient(["It is 20 degrees.", "Still 20 degrees."])
    agent = Agent(client=client, context_providers=[UserPreferences("prefs")])
    session = agent.create_session()
    await agent.run("Temperature?", session=session)
    await agent.run("And now?", session=session)

    assert "Run number 1; use metric." in client.calls[0].messages[0].text
    assert "Run number 2; use metric." in client.calls[1].messages[0].text
    assert session.state["prefs"] == {"runs": 2, "last_answer": "Still 20 degrees."}


async def test_a_custom_history_provider_stores_and_loads_messages() -> None:
    class DictHistory(HistoryProvider):
        def __init__(self) -> None:
            super().__init__("dict_history")
            self.store: dict[str, list[Message]] = {}

        async def get_messages(
            self, session_id: str, *, state: dict[str, Any] | None = None
        ) -> list[Message]:
            return list(self.store.get(session_id, []))

        async def save_messages(
            self,
            session_id: str,
            messages: Sequence[Message],
            *,
            state: dict[str, Any] | None = None,
        ) -> None:
            self.store.setdefault(session_id, []).extend(messages)

    history = DictHistory()
    agent = Agent(client=ScriptedChatClient(["Hi.", echo_history]), context_providers=[history])
    session = agent.create_session()
    await agent.run("Hello", session=session)
    response = await agent.run("Again", session=session)

    assert response.text == "Hello | Hi. | Again"
    assert [m.role for m in history.store[session.session_id]] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
