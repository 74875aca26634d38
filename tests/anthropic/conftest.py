from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from agentry.testing import Exchange
from tests.replays import Serve, replay_servers

RECORDINGS = Path(__file__).parent / "recordings"


@pytest.fixture
def serve() -> Iterator[Serve]:
    """Start replay servers for recording names; all are stopped after the test."""
    with replay_servers(RECORDINGS) as start:
        yield start


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
