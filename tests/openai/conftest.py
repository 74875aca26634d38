from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agentry.testing import Exchange, ReplayServer

RECORDINGS = Path(__file__).parent / "recordings"


@pytest.fixture
def replay(request: pytest.FixtureRequest) -> Iterator[ReplayServer]:
    """A replay server for the recording named by the test's `recording` marker."""
    marker = request.node.get_closest_marker("recording")
    assert marker is not None, "mark the test with @pytest.mark.recording('name')"
    with ReplayServer(RECORDINGS / f"{marker.args[0]}.json") as server:
        yield server


@pytest.fixture
def serve() -> Iterator[Callable[[str], ReplayServer]]:
    """Start replay servers for recording names; all are stopped after the test."""
    servers: list[ReplayServer] = []

    def start(name: str) -> ReplayServer:
        server = ReplayServer(RECORDINGS / f"{name}.json")
        server.__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def error_exchange(
    path: str, status: int, message: str, error_type: str, code: str | None
) -> Exchange:
    """An exchange answering with an OpenAI-shaped error body."""
    body = {"error": {"message": message, "type": error_type, "param": None, "code": code}}
    return Exchange(method="POST", path=path, status=status, body=body)


Serve = Callable[[str], ReplayServer]
