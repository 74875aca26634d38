from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from agentry.testing import Exchange, ReplayServer

RECORDINGS = Path(__file__).parent / "recordings"


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


def message_exchange(content: Sequence[Mapping[str, object]], stop_reason: str) -> Exchange:
    """An exchange answering with a Messages API message of these blocks."""
    body = {
        "id": "msg_01Qv8yRm3DgBr7Eh0As2Cu4W",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-5-5",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 10},
    }
    return Exchange(method="POST", path="/v1/messages", body=body)


def error_exchange(status: int, error_type: str, message: str) -> Exchange:
    """An exchange answering with a Messages API error body."""
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    return Exchange(method="POST", path="/v1/messages", status=status, body=body)


Serve = Callable[[str], ReplayServer]
