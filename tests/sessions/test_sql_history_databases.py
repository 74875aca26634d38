"""`SQLHistoryProvider` behaves the same on a SQLite file and on PostgreSQL, by URL."""

from __future__ import annotations

import asyncio

import pytest

from agentry import Agent, Message, SQLHistoryProvider
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import HistoryStoreError
from agentry.storage import DATABASE_URL_ENV, PoolSettings, StorageConfigError


async def test_a_conversation_is_kept_and_read_back_by_a_new_provider(database_url: str) -> None:
    first = SQLHistoryProvider(database_url)
    client = ScriptedChatClient(["Hello Ada.", "You are Ada."])
    agent = Agent(client=client, context_providers=[first])
    session = agent.create_session(session_id="s1")
    await agent.run("I am Ada.", session=session)
    await agent.run("Who am I?", session=session)
    await first.close()
    assert [m.text for m in client.calls[1].messages] == ["I am Ada.", "Hello Ada.", "Who am I?"]

    second = SQLHistoryProvider(database_url)
    try:
        stored = await second.get_messages("s1")
        assert [(m.role, m.text) for m in stored] == [
            ("user", "I am Ada."),
            ("assistant", "Hello Ada."),
            ("user", "Who am I?"),
            ("assistant", "You are Ada."),
        ]
        assert await second.get_messages("another") == []
    finally:
        await second.close()


async def test_concurrent_saves_keep_each_sessions_order(database_url: str) -> None:
    provider = SQLHistoryProvider(database_url, pool=PoolSettings(size=2, max_overflow=2))
    try:

        async def talk(session: str) -> None:
            for turn in range(5):
                await provider.save_messages(session, [Message("user", [f"{session}:{turn}"])])

        await asyncio.gather(*(talk(f"s{number}") for number in range(8)))
        for number in range(8):
            texts = [m.text for m in await provider.get_messages(f"s{number}")]
            assert texts == [f"s{number}:{turn}" for turn in range(5)]
    finally:
        await provider.close()


async def test_a_message_that_is_not_json_is_refused_before_anything_is_written(
    database_url: str,
) -> None:
    provider = SQLHistoryProvider(database_url)
    odd = Message("user", ["hi"], additional_properties={"when": object()})
    try:
        with pytest.raises(HistoryStoreError, match="cannot store a 'user' message"):
            await provider.save_messages("s", [Message("user", ["fine"]), odd])
        assert await provider.get_messages("s") == []
    finally:
        await provider.close()


async def test_the_database_setting_is_used_when_no_url_is_given(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DATABASE_URL_ENV, database_url)
    provider = SQLHistoryProvider()
    await provider.save_messages("s", [Message("user", ["kept"])])
    await provider.close()
    explicit = SQLHistoryProvider(database_url)
    try:
        assert [m.text for m in await explicit.get_messages("s")] == ["kept"]
    finally:
        await explicit.close()


def test_without_url_engine_or_setting_the_provider_says_what_to_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(DATABASE_URL_ENV, raising=False)
    with pytest.raises(StorageConfigError, match=r"pass a URL .* or set \$AGENTRY_DATABASE_URL"):
        SQLHistoryProvider()


def test_pool_settings_are_checked() -> None:
    with pytest.raises(StorageConfigError, match="pool size must be at least 1, got 0"):
        PoolSettings(size=0)
    with pytest.raises(StorageConfigError, match="pool timeout must be positive"):
        PoolSettings(timeout=0)
