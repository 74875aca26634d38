"""A progress bar on stderr for long work on model files, shown only on a terminal.

Assembling the default model copies and hashes about 500 MB, and checking it hashes as much
again: seconds on a fast disk, much longer on a slow one. On a terminal the user sees a bar
(drawn by rich); anywhere else (a pipe, a log file, a test) nothing is written.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator
from contextlib import contextmanager

__all__ = ["byte_progress"]


def _ignore(done: int) -> None:
    del done


@contextmanager
def byte_progress(
    label: str | None, total: int, *, keep: bool = False
) -> Generator[Callable[[int], None]]:
    """A function to report each number of bytes done, drawing a bar while it is in use.

    Args:
        label: What is being done; `None` shows nothing.
        total: The bytes to do.
        keep: Leave the finished bar on the screen (by default it is erased).
    """
    stream = sys.stderr
    if label is None or stream is None or not stream.isatty():  # pyright: ignore[reportUnnecessaryComparison]
        yield _ignore
        return
    try:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )
    except ImportError:  # installed without the `local` extra: work without a bar
        yield _ignore
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    console = Console(file=stream)
    with Progress(*columns, console=console, transient=not keep) as progress:
        task = progress.add_task(label, total=total)

        def advance(done: int) -> None:
            progress.advance(task, done)

        yield advance
