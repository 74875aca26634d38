from collections.abc import Iterator
from pathlib import Path

import pytest

from agentry.testing import ReplayServer

RECORDINGS = Path(__file__).parent / "recordings"


@pytest.fixture
def replay(request: pytest.FixtureRequest) -> Iterator[ReplayServer]:
    """A replay server for the recording named by the test's `recording` marker."""
    marker = request.node.get_closest_marker("recording")
    assert marker is not None, "mark the test with @pytest.mark.recording('name')"
    with ReplayServer(RECORDINGS / f"{marker.args[0]}.json") as server:
        yield server
