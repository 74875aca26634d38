"""`agentry serve a2a` says where it keeps tasks and sessions before it serves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy

from tests.cli.conftest import SRC, Agentry

HELLO_AGENT = """
from agentry.clients.scripted import ScriptedChatClient

agent = ScriptedChatClient(["Hello!"]).as_agent(name="hello", description="Says hello.")
"""


def _serve_until_started(tmp_path: Path, *options: str) -> list[str]:
    """Start `agentry serve a2a hello:agent OPTIONS` on a free port; its stderr until it serves."""
    (tmp_path / "hello.py").write_text(HELLO_AGENT)
    command = ["serve", "a2a", "hello:agent", "--port", "0", *options]
    lines: list[str] = []
    with subprocess.Popen(  # leaving the block closes the stderr pipe
        [sys.executable, "-m", "agentry.cli", *command],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": SRC},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as server:
        try:
            assert server.stderr is not None
            for line in server.stderr:  # ends if the server exits; pytest's timeout guards a hang
                lines.append(line.rstrip("\n"))
                if "Application startup complete" in line:
                    break
        finally:
            server.terminate()
            server.wait(timeout=30)
    return lines


def test_serve_a2a_names_its_sqlite_file(tmp_path: Path) -> None:
    lines = _serve_until_started(tmp_path)

    database = (tmp_path / "agentry-a2a.sqlite").resolve()
    assert lines[0] == (
        f"agentry: tasks and sessions are kept in the SQLite file {database} "
        "(--database none: in memory)"
    )
    assert lines[-1].endswith("Application startup complete."), lines
    assert database.is_file()


def test_serve_a2a_says_when_it_keeps_nothing(tmp_path: Path) -> None:
    lines = _serve_until_started(tmp_path, "--database", "none")

    assert lines[0] == (
        "agentry: tasks and sessions are kept in memory (they are lost when the server stops)"
    )
    assert list(tmp_path.glob("*.sqlite")) == []


def test_serve_a2a_keeps_tasks_in_postgresql_by_url(tmp_path: Path, postgres_url: str) -> None:
    url_with_password = postgres_url.replace("postgres@", "postgres:secret@")
    lines = _serve_until_started(tmp_path, "--database", url_with_password, "--pool-size", "2")

    assert lines[0] == (
        f"agentry: tasks and sessions are kept in the database "
        f"{postgres_url.replace('postgres@', 'postgres:***@')} (--database none: in memory)"
    )
    assert lines[-1].endswith("Application startup complete."), lines
    assert list(tmp_path.glob("*.sqlite")) == []
    engine = sqlalchemy.create_engine(
        postgres_url.replace("postgresql://", "postgresql+psycopg://")
    )
    try:
        with engine.connect() as connection:
            components = connection.execute(
                sqlalchemy.text("SELECT component FROM agentry_schema_versions ORDER BY component")
            ).all()
    finally:
        engine.dispose()
    assert [row[0] for row in components] == [
        "agentry_a2a_servers",
        "agentry_a2a_sessions",
        "agentry_a2a_tasks",
    ]


@pytest.mark.parametrize(
    ("options", "error"),
    [
        (
            ["--database", "mysql://db.internal/agents"],
            "error: database 'mysql://db.internal/agents' is neither SQLite nor PostgreSQL; "
            "give a SQLite file, sqlite:///FILE or postgresql://USER@HOST/DATABASE",
        ),
        (["--pool-size", "0"], "error: pool size must be at least 1, got 0"),
        (["--pool-timeout", "-1"], "error: pool timeout must be positive, got -1.0"),
    ],
)
def test_serve_a2a_refuses_a_database_setting_it_cannot_use(
    agentry: Agentry, tmp_path: Path, options: list[str], error: str
) -> None:
    (tmp_path / "hello.py").write_text(HELLO_AGENT)
    completed = agentry("serve", "a2a", "hello:agent", *options)

    assert completed.returncode == 2
    assert completed.stderr.strip() == error
