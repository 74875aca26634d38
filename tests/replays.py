"""Replay servers of recorded provider exchanges, for the client tests of each provider."""

from __future__ import annotations

from collections.abc import Callable, Generator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from agentry.testing import ReplayServer

__all__ = ["Serve", "replay_servers"]

Serve = Callable[[str], ReplayServer]
"""Starts the replay server of a recording, by name."""


@contextmanager
def replay_servers(recordings: Path) -> Generator[Serve]:
    """A function that starts the replay server of `recordings/NAME.json`; every server it
    started stops when the block ends."""
    with ExitStack() as servers:
        yield lambda name: servers.enter_context(ReplayServer(recordings / f"{name}.json"))
