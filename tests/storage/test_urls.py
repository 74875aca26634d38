"""Database URLs: the plain URL a user writes, and the async driver agentry picks."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentry.storage import StorageConfigError, async_url, safe_url


@pytest.mark.parametrize(
    ("written", "used"),
    [
        ("postgresql://agentry@db/agentry", "postgresql+psycopg://agentry@db/agentry"),
        ("postgres://agentry@db/agentry", "postgresql+psycopg://agentry@db/agentry"),
        ("postgresql+asyncpg://agentry@db/agentry", "postgresql+asyncpg://agentry@db/agentry"),
        ("sqlite:///runs.sqlite", "sqlite+aiosqlite:///runs.sqlite"),
        ("sqlite+aiosqlite:///runs.sqlite", "sqlite+aiosqlite:///runs.sqlite"),
    ],
)
def test_plain_urls_get_the_async_driver(written: str, used: str) -> None:
    assert async_url(written).render_as_string(hide_password=False) == used


def test_a_path_is_a_sqlite_file(tmp_path: Path) -> None:
    url = async_url(tmp_path / "a.sqlite")
    assert (url.drivername, url.database) == ("sqlite+aiosqlite", str(tmp_path / "a.sqlite"))


def test_a_malformed_url_says_what_to_write() -> None:
    with pytest.raises(StorageConfigError, match=r"not a database URL; write postgresql://"):
        async_url("postgresql://user@host:notaport/db")


def test_passwords_are_hidden_in_messages() -> None:
    assert (
        safe_url("postgresql://agentry:secret@db/agentry") == "postgresql://agentry:***@db/agentry"
    )


def test_a_malformed_url_is_named_without_its_credentials() -> None:
    with pytest.raises(
        StorageConfigError, match=r"'postgresql://\*\*\*@host:port/db' is not a database URL"
    ):
        async_url("postgresql://agentry:secret@host:port/db")
