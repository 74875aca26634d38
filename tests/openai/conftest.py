from collections.abc import Iterator
from pathlib import Path

import pytest

from agentry.testing import Exchange, ReplayServer
from tests.replays import Serve, replay_servers

RECORDINGS = Path(__file__).parent / "recordings"


@pytest.fixture
def replay(request: pytest.FixtureRequest) -> Iterator[ReplayServer]:
    """A replay server for the recording named by the test's `recording` marker."""
    marker = request.node.get_closest_marker("recording")
    assert marker is not None, "mark the test with @pytest.mark.recording('name')"
    with ReplayServer(RECORDINGS / f"{marker.args[0]}.json") as server:
        yield server


@pytest.fixture
def serve() -> Iterator[Serve]:
    """Start replay servers for recording names; all are stopped after the test."""
    with replay_servers(RECORDINGS) as start:
        yield start


def error_exchange(
    path: str, status: int, message: str, error_type: str, code: str | None
) -> Exchange:
    """An exchange answering with an OpenAI-shaped error body."""
    body = {"error": {"message": message, "type": error_type, "param": None, "code": code}}
    return Exchange(method="POST", path=path, status=status, body=body)
