import asyncio
import json
import logging
import os
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


async def test_file_history_keeps_one_message_per_line_marking_each_turns_lines(
    tmp_path: Path,
) -> None:
    client = await _two_turns(FileHistoryProvider(tmp_path))
    assert [m.text for m in client.calls[1].messages] == ["I am Ada.", "Hello Ada.", "Who am I?"]
    records = [json.loads(line) for line in (tmp_path / "s1.jsonl").read_text().splitlines()]
    assert [r["role"] for r in records] == ["user", "assistant"] * 2
    markers = [r["_batch"] for r in records]
    assert [(index, size) for _, index, size in markers] == [(0, 2), (1, 2)] * 2
    assert markers[0][0] == markers[1][0] != markers[2][0] == markers[3][0]


async def test_lines_of_a_save_that_never_finished_are_left_out_with_their_batch(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    provider = FileHistoryProvider(tmp_path)
    await provider.save_messages("s", [Message("user", ["q"]), Message("assistant", ["a"])])
    path = tmp_path / "s.jsonl"
    first_line = path.read_text().splitlines()[0]
    path.write_text(first_line + "\n")  # a crash after the first line of the save
    await provider.save_messages("s", [Message("user", ["later"])])

    assert [m.text for m in await provider.get_messages("s")] == ["later"]
    assert "the rest of their save is missing" in caplog.text


async def test_a_single_message_is_saved_as_a_plain_object_line(tmp_path: Path) -> None:
    provider = FileHistoryProvider(tmp_path)
    await provider.save_messages("s", [Message("user", ["one"])])
    assert json.loads((tmp_path / "s.jsonl").read_text()) == Message("user", ["one"]).to_dict()


async def test_sqlite_history_survives_a_new_provider(tmp_path: Path) -> None:
    database = tmp_path / "history.db"
    first = SQLiteHistoryProvider(database)
    await _two_turns(first)
    await first.close()
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


async def test_lines_that_are_json_but_not_messages_are_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    provider = FileHistoryProvider(tmp_path)
    await provider.save_messages("s", [Message("user", ["one"])])
    deep = "[" * 5000 + "]" * 5000
    with (tmp_path / "s.jsonl").open("a") as file:
        file.write('{"role":"user","contents":[1]}\n')
        file.write('{"role":"user","contents":5}\n')
        file.write('{"role":"user","additional_properties":{"x":' + deep + "}}\n")
        file.write("[7]\n")
    await provider.save_messages("s", [Message("assistant", ["two"])])
    with caplog.at_level(logging.WARNING, logger="agentry.sessions"):
        messages = await provider.get_messages("s")
    assert [m.text for m in messages] == ["one", "two"]
    skipped = [r.getMessage() for r in caplog.records if "skipping corrupt line" in r.getMessage()]
    assert [text.split(" of ")[0] for text in skipped] == [
        f"skipping corrupt line {n}" for n in (2, 3, 4, 5)
    ]
    assert "'contents[0]' should be a valid dictionary" in skipped[0]
    assert "nested too deeply" in skipped[2]


async def test_a_save_cut_short_anywhere_is_read_back_whole_or_not_at_all(
    tmp_path: Path,
) -> None:
    turn = [
        Message("user", ["question"]),
        Message("assistant", ["answer"]),
        Message("user", ["ok"]),
    ]
    await FileHistoryProvider(tmp_path / "scratch").save_messages("s", turn)
    written = (tmp_path / "scratch" / "s.jsonl").read_bytes()
    provider = FileHistoryProvider(tmp_path / "history")
    await provider.save_messages("s", [Message("user", ["before"])])
    path = tmp_path / "history" / "s.jsonl"
    before = path.read_bytes()
    for cut in range(1, len(written) + 1):  # every point a kill could stop the write at
        path.write_bytes(before + written[:cut])
        texts = [m.text for m in await provider.get_messages("s")]
        assert texts in (["before"], ["before", "question", "answer", "ok"]), cut


async def test_a_writer_killed_mid_save_never_leaves_half_a_turn(tmp_path: Path) -> None:
    writer = textwrap.dedent(
        """
        import asyncio, itertools, sys
        from agentry import FileHistoryProvider, Message
        async def main():
            provider = FileHistoryProvider(sys.argv[1], fsync=False)
            for turn in itertools.count(int(sys.argv[2])):
                parts = [Message("user", [f"{turn}:{i}:" + "x" * 400_000]) for i in range(3)]
                await provider.save_messages("s", parts)
                print(turn, flush=True)
        asyncio.run(main())
        """
    )
    path = tmp_path / "s.jsonl"
    for attempt in range(5):  # until a kill lands in the middle of a save
        process = subprocess.Popen(
            [sys.executable, "-c", writer, str(tmp_path), str(attempt * 1000)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        process.stdout.readline()  # a first turn is saved
        deadline = time.monotonic() + 5  # a hang guard only
        while time.monotonic() < deadline and _ends_a_line(path):
            pass
        process.kill()  # as soon as a save has started writing, or at the guard
        process.wait()
        process.stdout.close()
        if not _ends_a_line(path):
            break
    messages = await FileHistoryProvider(tmp_path).get_messages("s")
    turns: dict[str, list[str]] = {}
    for message in messages:
        turn, part, _ = message.text.split(":", 2)
        turns.setdefault(turn, []).append(part)
    assert turns
    assert all(parts == ["0", "1", "2"] for parts in turns.values())


def _ends_a_line(path: Path) -> bool:
    with path.open("rb") as file:
        file.seek(-1, os.SEEK_END)
        return file.read(1) == b"\n"


async def test_messages_that_are_not_json_are_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    odd = Message("user", ["hi"], additional_properties={"when": object()})
    file_history = FileHistoryProvider(tmp_path)
    sqlite_history = SQLiteHistoryProvider(tmp_path / "h.db")
    try:
        for provider in (file_history, sqlite_history):
            with pytest.raises(HistoryStoreError, match="cannot store a 'user' message"):
                await provider.save_messages("s", [Message("user", ["fine"]), odd])
            assert await provider.get_messages("s") == []
    finally:
        await sqlite_history.close()


async def test_sqlite_rows_that_are_not_messages_are_history_store_errors(tmp_path: Path) -> None:
    import sqlite3

    deep = "[" * 5000 + "]" * 5000
    rows = {
        '{"role":"user","contents":5}': "field 'contents' should be a valid list",
        '{"role":"user","contents":[1]}': r"field 'contents\[0\]' should be a valid dictionary",
        '{"role":"user","additional_properties":{"x":' + deep + "}}": "nested too deeply",
    }
    for number, (row, problem) in enumerate(rows.items()):
        provider = SQLiteHistoryProvider(tmp_path / f"h{number}.db")
        await provider.save_messages("s", [Message("user", ["ok"])])
        with sqlite3.connect(tmp_path / f"h{number}.db") as connection:
            connection.execute(
                "INSERT INTO agentry_messages (session_id, message) VALUES ('s', ?)", (row,)
            )
        with pytest.raises(
            HistoryStoreError, match=f"row 2 of session 's' is not a message: .*{problem}"
        ):
            await provider.get_messages("s")
        await provider.close()


async def test_a_file_that_is_not_a_database_is_a_history_store_error(tmp_path: Path) -> None:
    (tmp_path / "h.db").write_bytes(b"not a database " * 100)
    provider = SQLiteHistoryProvider(tmp_path / "h.db")
    try:
        with pytest.raises(HistoryStoreError, match="cannot open the history table"):
            await provider.get_messages("s")
        with pytest.raises(HistoryStoreError, match="cannot open the history table"):
            await provider.save_messages("s", [Message("user", ["hi"])])
    finally:
        await provider.close()
    assert (tmp_path / "h.db").read_bytes() == b"not a database " * 100
