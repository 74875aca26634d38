"""`agentry db upgrade|status`: every store's tables prepared ahead of a deployment."""

from __future__ import annotations

import sqlalchemy

from tests.cli.conftest import Agentry

COMPONENTS = {
    "agentry_a2a_servers": 1,
    "agentry_a2a_sessions": 1,
    "agentry_a2a_tasks": 2,
    "agentry_messages": 1,
    "agentry_openai_responses": 1,
    "agentry_workflow_checkpoints": 1,
}


def test_upgrade_prepares_every_store_and_status_lists_them(
    agentry: Agentry, postgres_url: str
) -> None:
    upgraded = agentry("db", "upgrade", postgres_url)
    assert upgraded.returncode == 0, upgraded.stderr
    assert upgraded.stdout.splitlines() == [
        f"{component}: version {version} (new -> {version})"
        for component, version in COMPONENTS.items()
    ]

    status = agentry("db", "status", env={"AGENTRY_DATABASE_URL": postgres_url})
    assert status.returncode == 0, status.stderr
    assert status.stdout.splitlines() == [
        f"{component}: version {version}" for component, version in COMPONENTS.items()
    ]


def test_upgrade_refuses_a_database_of_a_newer_agentry(agentry: Agentry, postgres_url: str) -> None:
    engine = sqlalchemy.create_engine(
        postgres_url.replace("postgresql://", "postgresql+psycopg://")
    )
    with engine.begin() as connection:
        connection.execute(
            sqlalchemy.text(
                "CREATE TABLE agentry_schema_versions (component VARCHAR(200) PRIMARY KEY, "
                "version INTEGER NOT NULL)"
            )
        )
        connection.execute(
            sqlalchemy.text("INSERT INTO agentry_schema_versions VALUES ('agentry_messages', 4)")
        )
    engine.dispose()

    refused = agentry("db", "upgrade", postgres_url)
    assert refused.returncode == 1
    assert "version 4 of 'agentry_messages', written by a newer agentry" in refused.stderr


def test_a_database_must_be_named(agentry: Agentry) -> None:
    missing = agentry("db", "status", env={"AGENTRY_DATABASE_URL": ""})
    assert missing.returncode == 2
    assert "agentry db status URL, or set $AGENTRY_DATABASE_URL" in missing.stderr
