import asyncio
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agentry import Agent, FileHistoryProvider, Message, SQLiteHistoryProvider
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import HistoryStoreError
from agentry.sessions import HistoryProvider


async def _two_turns(provider: HistoryProvider) -> ScriptedChatClient:
    client = ScriptedChatClient(["Hello Ada.", "You are Ada."])
    agent = Agent(client=client, context_providers=[provider])
    session = agent.create_session(session_id="s1")
    await agent.run("I am Ada.", session=session)
    await agent.run("Who am I?", session=session)
    return client


async def test_file_history_keeps_one_message_per_line(tmp_path: Path) -> None:
    client = await _two_turns(FileHistoryProvider(tmp_path))
    assert [m.text for m in client.calls[1].messages] == ["I am Ada.", "Hello Ada.", "Who am I?"]
    lines = (tmp_path / "s1.jsonl").read_text().splitlines()
    assert [json.loads(line)["role"] for line in lines] == ["user", "assistant"] * 2


async def test_sqlite_history_survives_a_new_provider(tmp_path: Path) -> None:
    database = tmp_path / "history.db"
    await _two_turns(SQLiteHistoryProvider(database))
    fresh = SQLiteHistoryProvider(database)
    messages = await fresh.get_messages("s1")
    assert [m.text for m in messages] == ["I am Ada.", "Hello Ada.", "Who am I?", "You are Ada."]
    await fresh.close()


async def test_a_truncated_last_line_is_skipped_and_nothing_else_is_lost(tmp_path: Path) -> None:
    provider = FileHistoryProvider(tmp_path)
    await provider.save_messages("s", [Message("user", ["one"]), Message("assistant", ["two"])])
    path = tmp_path / "s.jsonl"
    with path.open("ab") as file:
        file.write(b'{"role": "user", "contents": [{"type": "te')  # a crash mid-write
    assert [m.text for m in await provider.get_messages("s")] == ["one", "two"]
    await provider.save_messages("s", [Message("user", ["three"])])
    assert [m.text for m in await provider.get_messages("s")] == ["one", "two", "three"]
    assert b'"contents": [{"type": "te\n' in path.read_bytes()  # kept, isolated on its line


async def test_concurrent_runs_on_one_session_do_not_interleave(tmp_path: Path) -> None:
    provider = FileHistoryProvider(tmp_path, fsync=False)
    batches = [[Message("user", [f"{b}:{i}"]) for i in range(30)] for b in range(20)]
    await asyncio.gather(*(provider.save_messages("s", batch) for batch in batches))
    texts = [m.text for m in await provider.get_messages("s")]
    assert len(texts) == 600
    for start in range(0, 600, 30):
        owners = {text.split(":")[0] for text in texts[start : start + 30]}
        assert len(owners) == 1


async def test_a_killed_writer_leaves_earlier_lines_readable(tmp_path: Path) -> None:
    writer = textwrap.dedent(
        f"""
        import asyncio
        from agentry import FileHistoryProvider, Message
        async def main():
            provider = FileHistoryProvider({str(tmp_path)!r}, fsync=False)
            n = 0
            while True:
                await provider.save_messages("s", [Message("user", ["x" * 5000 + str(n)])])
                n += 1
        asyncio.run(main())
        """
    )
    process = subprocess.Popen([sys.executable, "-c", writer])
    path = tmp_path / "s.jsonl"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and (not path.exists() or path.stat().st_size < 200_000):
        await asyncio.sleep(0.05)
    process.kill()
    process.wait()
    provider = FileHistoryProvider(tmp_path)
    before = await provider.get_messages("s")
    assert len(before) >= 20
    assert [m.text[5000:] for m in before] == [str(n) for n in range(len(before))]
    await provider.save_messages("s", [Message("user", ["after"])])
    after = await provider.get_messages("s")
    assert after[-1].text == "after"
    assert len(after) == len(before) + 1


def test_session_ids_cannot_escape_the_directory(tmp_path: Path) -> None:
    provider = FileHistoryProvider(tmp_path)
    for bad in ("../x", "/etc/passwd", ".hidden", "a/b", "", "x" * 200):
        with pytest.raises(HistoryStoreError, match="cannot name a history file"):
            provider.path_for(bad)


async def test_an_unreadable_sqlite_row_is_a_clear_error(tmp_path: Path) -> None:
    import sqlite3

    provider = SQLiteHistoryProvider(tmp_path / "h.db")
    await provider.save_messages("s", [Message("user", ["ok"])])
    with sqlite3.connect(tmp_path / "h.db") as connection:
        connection.execute(
            "INSERT INTO agentry_messages (session_id, message) VALUES ('s', 'nope')"
        )
    with pytest.raises(HistoryStoreError, match="is not a message"):
        await provider.get_messages("s")
    await provider.close()
