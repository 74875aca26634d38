"""Two A2A servers on one database (a SQLite file, or PostgreSQL by URL) serve the same
tasks and conversations; their tables are versioned like every agentry store's."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from a2a.server.tasks import DatabaseTaskStore
from a2a.types import GetTaskRequest, ListTasksRequest, TaskState

from agentry import Agent
from agentry.a2a import (
    TASKS_TABLE,
    SQLContextSessionStore,
    SQLiteContextSessionStore,
    create_app,
    prepare_database,
)
from agentry.clients.scripted import ScriptedChatClient
from agentry.durable import DurableRuntime
from agentry.sessions import AgentSession
from agentry.storage import (
    DATABASE_URL_ENV,
    PoolSettings,
    SchemaVersionError,
    create_engine,
)
from tests.aiosqlite_threads import open_aiosqlite_connections
from tests.storage.versions import schema_versions

from .conftest import a2a_client, serve
from .helpers import artifact_text, count_users, send_blocking, user_message

pytestmark = pytest.mark.timeout(60)


def counter() -> Agent:
    return Agent(client=ScriptedChatClient([count_users]), name="counter")


async def test_a_task_made_through_one_server_is_read_and_continued_through_another(
    database_url: str,
) -> None:
    pool = PoolSettings(size=2, max_overflow=1)
    async with (
        serve(counter(), database=database_url, pool=pool) as first,
        serve(counter(), database=database_url, pool=pool) as second,
        a2a_client(first.url, streaming=False) as first_client,
        a2a_client(second.url, streaming=False) as second_client,
    ):
        task = await send_blocking(first_client, user_message("hello"))
        fetched = await second_client.get_task(GetTaskRequest(id=task.id))
        listed = await second_client.list_tasks(ListTasksRequest())
        follow_up = await send_blocking(
            second_client, user_message("again", context_id=task.context_id)
        )
    assert fetched.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(fetched) == "seen 1 user messages"
    assert [t.id for t in listed.tasks] == [task.id]
    assert artifact_text(follow_up) == "seen 2 user messages"  # the session is shared too

    assert await schema_versions(database_url) == {
        TASKS_TABLE: 2,
        "agentry_a2a_servers": 1,
        "agentry_a2a_sessions": 1,
    }


async def test_the_database_setting_stands_in_for_the_default_file(
    database_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(DATABASE_URL_ENV, database_url)
    monkeypatch.chdir(tmp_path)
    app = create_app(counter())  # the default database
    async with app.starlette.router.lifespan_context(app.starlette):
        pass
    assert not (tmp_path / "agentry-a2a.sqlite").exists()
    assert TASKS_TABLE in await schema_versions(database_url)


@pytest.mark.parametrize(("component", "newer"), [(TASKS_TABLE, 3), ("agentry_a2a_servers", 2)])
async def test_a_server_on_a_newer_schema_refuses_to_start(
    database_url: str, component: str, newer: int
) -> None:
    first = create_app(counter(), database=database_url)
    async with first.starlette.router.lifespan_context(first.starlette):
        pass
    engine = create_engine(database_url)
    async with engine.begin() as connection:
        await connection.execute(
            sa.text("UPDATE agentry_schema_versions SET version = :v WHERE component = :name"),
            {"name": component, "v": newer},
        )
    await engine.dispose()
    refused = create_app(counter(), database=database_url)
    with pytest.raises(SchemaVersionError, match=f"version {newer} of '{component}'"):
        async with refused.starlette.router.lifespan_context(refused.starlette):
            pass


async def test_a_server_that_refuses_to_start_leaves_nothing_open(tmp_path: Path) -> None:
    database = tmp_path / "a2a.sqlite"
    await prepare_database(database)
    with sqlite3.connect(database) as connection:  # as a newer agentry leaves it
        connection.execute(
            "UPDATE agentry_schema_versions SET version = 3 WHERE component = ?", (TASKS_TABLE,)
        )
    runs = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    refused = create_app(
        counter(), database=database, durable=DurableRuntime(runs, takeover_after=None)
    )
    with pytest.raises(SchemaVersionError):
        async with refused.starlette.router.lifespan_context(refused.starlette):
            pass
    assert open_aiosqlite_connections() == []
    async with DurableRuntime(runs, takeover_after=None):  # the refused one was shut down
        pass


async def test_tasks_at_version_1_gain_the_versioned_store_tables(tmp_path: Path) -> None:
    database = tmp_path / "a2a.sqlite"
    async with (
        serve(counter(), database=database) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        task = await send_blocking(client, user_message("hello"))
    with sqlite3.connect(database) as connection:  # as version 1 left the database
        connection.execute("DROP TABLE task_versions")
        connection.execute("DROP TABLE task_events")
        connection.execute(
            "UPDATE agentry_schema_versions SET version = 1 WHERE component = ?", (TASKS_TABLE,)
        )
    async with (
        serve(counter(), database=database) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        fetched = await client.get_task(GetTaskRequest(id=task.id))
        follow_up = await send_blocking(client, user_message("again", context_id=task.context_id))
    assert fetched.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(follow_up) == "seen 2 user messages"
    assert (await schema_versions(f"sqlite:///{database}"))[TASKS_TABLE] == 2


async def test_tasks_of_a_file_written_before_versions_are_kept(tmp_path: Path) -> None:
    database = tmp_path / "a2a.sqlite"
    # How servers kept tasks before: a2a-sdk's own table, `tasks`.
    legacy = create_engine(database)
    await DatabaseTaskStore(legacy).initialize()
    await legacy.dispose()
    async with (
        serve(counter(), database=database) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        task = await send_blocking(client, user_message("hello"))
    with sqlite3.connect(database) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    assert TASKS_TABLE in tables
    assert "tasks" not in tables
    async with (
        serve(counter(), database=database) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        fetched = await client.get_task(GetTaskRequest(id=task.id))
    assert fetched.status.state == TaskState.TASK_STATE_COMPLETED


async def test_the_sqlite_session_store_shares_the_versioned_table(tmp_path: Path) -> None:
    database = tmp_path / "sessions.sqlite"
    plain = SQLiteContextSessionStore(database)
    await plain.save("ctx-1", AgentSession(session_id="ctx-1", state={"n": 1}))
    plain.close()
    sql = SQLContextSessionStore(database)
    loaded = await sql.load("ctx-1")
    await sql.close()
    assert loaded is not None
    assert loaded.state == {"n": 1}
    assert await schema_versions(f"sqlite:///{database}") == {"agentry_a2a_sessions": 1}
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE agentry_schema_versions SET version = 5")
    newer = SQLiteContextSessionStore(database)
    with pytest.raises(SchemaVersionError, match="version 5 of 'agentry_a2a_sessions'"):
        await newer.load("ctx-1")
    newer.close()
