"""`agentry db status|upgrade [URL]`: the schema versions of agentry's stores in a database.

Stores create and upgrade their tables when they first open a database; `upgrade` does it
ahead of a deployment, for every store at once, so that servers and workers start on
tables that are ready.
"""

from __future__ import annotations

import argparse
import importlib.util
from typing import Any

from agentry.cli._errors import CliError

__all__ = ["add_parser"]


def add_parser(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `db` command (`status`, `upgrade`) to the `agentry` parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "db",
        parents=parents,
        help="show or upgrade the schema versions of agentry's stores",
        description="Show or upgrade the versions of agentry's tables in a database.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, handler, summary in (
        ("status", _status, "print the version of each component recorded in the database"),
        (
            "upgrade",
            _upgrade,
            "create or upgrade the tables of every store (history, checkpoints, A2A tasks, "
            "leases and sessions) to this agentry's versions",
        ),
    ):
        action = actions.add_parser(name, parents=parents, help=summary, description=summary)
        action.add_argument(
            "url",
            nargs="?",
            metavar="URL",
            help="a database URL or SQLite file (default: $AGENTRY_DATABASE_URL)",
        )
        action.set_defaults(handler=handler)


def _database(arguments: argparse.Namespace) -> str:
    from agentry.storage import DATABASE_URL_ENV, default_database_url

    url: str | None = arguments.url or default_database_url()
    if url is None:
        raise CliError(
            f"name the database: agentry db {arguments.action} URL, or set ${DATABASE_URL_ENV}",
            exit_code=2,
        )
    return url


async def _versions(url: str) -> dict[str, int]:
    from agentry.storage import create_engine, read_schema_versions

    engine = create_engine(url)
    try:
        return await read_schema_versions(engine)
    finally:
        await engine.dispose()


async def _status(arguments: argparse.Namespace) -> int:
    from agentry.storage import safe_url

    url = _database(arguments)
    versions = await _versions(url)
    if not versions:
        print(f"{safe_url(url)}: no agentry tables yet (agentry db upgrade creates them)")
    for component, version in sorted(versions.items()):
        print(f"{component}: version {version}")
    return 0


async def _upgrade(arguments: argparse.Namespace) -> int:
    from agentry.sessions import SQLHistoryProvider
    from agentry.workflows import SQLCheckpointStorage

    url = _database(arguments)
    before = await _versions(url)
    history = SQLHistoryProvider(url)
    checkpoints = SQLCheckpointStorage(url)
    try:
        await history.prepare()
        await checkpoints.prepare()
    finally:
        await history.close()
        await checkpoints.close()
    if importlib.util.find_spec("a2a") is not None:
        from agentry.a2a import prepare_database

        await prepare_database(url)
    if all(importlib.util.find_spec(p) is not None for p in ("openai", "starlette")):
        from agentry.openai.server import SQLResponseStore

        responses = SQLResponseStore(url)
        try:
            await responses.prepare()
        finally:
            await responses.close()
    for component, version in sorted((await _versions(url)).items()):
        found = before.get(component, 0)
        change = "up to date" if found == version else f"{found or 'new'} -> {version}"
        print(f"{component}: version {version} ({change})")
    return 0
