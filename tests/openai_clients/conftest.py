"""Fixtures: replay servers on 127.0.0.1 serving the recordings next to this file."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentry.testing import ReplayServer

RECORDINGS = Path(__file__).parent / "recordings"

ServerFactory = Callable[["str | list[dict[str, Any]]"], ReplayServer]


@pytest.fixture
def replay() -> Iterator[ServerFactory]:
    """Start a replay server for a recording file name (or a list of exchanges)."""
    servers: list[ReplayServer] = []

    def start(source: str | list[dict[str, Any]]) -> ReplayServer:
        server = (
            ReplayServer.from_file(RECORDINGS / source)
            if isinstance(source, str)
            else ReplayServer(source)
        )
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
        assert not server.failures, server.failures


@pytest.fixture(autouse=True)
def _no_openai_environment(monkeypatch: pytest.MonkeyPatch) -> None:  # pyright: ignore[reportUnusedFunction]
    """Tests never pick up a developer's real OpenAI settings."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_ORG_ID"):
        monkeypatch.delenv(name, raising=False)


def error_exchange(
    path: str, status: int, message: str, error_type: str, code: str | None
) -> dict[str, Any]:
    """An exchange answering with an OpenAI-shaped error body."""
    return {
        "request": {"method": "POST", "path": path},
        "response": {
            "status": status,
            "body": {
                "error": {"message": message, "type": error_type, "param": None, "code": code}
            },
        },
    }
