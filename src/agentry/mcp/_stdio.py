"""MCP over a local process's standard input and output, able to tell why it went away.

The SDK's stdio transport keeps its process to itself, so a server that crashes is reported
only as "Connection closed", and one that writes stray text to standard output only as a
timeout. This transport, on the SDK's transport interface (a context manager yielding a read
and a write stream of `SessionMessage`s), keeps what is needed to say why: the exit status,
the end of the server's standard error (still passed on to `errlog`), and the first lines
of standard output that were not MCP messages. It follows the shutdown the MCP
specification asks for: close the server's input, wait, then terminate the process group.
"""

from __future__ import annotations

import codecs
import contextlib
import logging
import signal
import sys
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TextIO

import anyio

if TYPE_CHECKING:
    from anyio.abc import ByteReceiveStream, Process
    from mcp.client.stdio import StdioServerParameters
    from mcp.shared.message import SessionMessage

__all__ = ["ServerRun", "stdio_transport"]

logger = logging.getLogger("agentry.mcp")

STDERR_TAIL_LINES = 12
"""Lines of a server's standard error quoted when it exits."""

STRAY_LINES_KEPT = 3
EXIT_GRACE = 2.0
"""Seconds a server has to exit once its standard input is closed, before it is terminated."""

TERMINATE_GRACE = 2.0
"""Seconds from SIGTERM to SIGKILL, and then for the process to be reaped."""

FLUSH_GRACE = 0.5
EXIT_POLL_INTERVAL = 0.02


class ServerRun:
    """What one run of a stdio server process showed: how it ended, the end of its
    standard error, and standard output that was not MCP.

    Args:
        name: The server's name, for logs.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.process: Process | None = None
        self.stray_lines: list[str] = []
        """The first lines of standard output that were not MCP messages."""
        self.stray_count = 0
        self._stderr_lines: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._stderr_partial = ""
        self._stderr_ended = anyio.Event()

    @property
    def returncode(self) -> int | None:
        """The exit status once the process has ended (negative: killed by that signal)."""
        return None if self.process is None else self.process.returncode

    def note_stray_output(self, line: str) -> None:
        """Record a line of standard output that is not an MCP message."""
        if self.stray_count == 0:
            logger.warning(
                "MCP server %r wrote to its standard output a line that is not an MCP message "
                "(%r); a stdio server must write only MCP messages there (logs belong on "
                "standard error)",
                self.name,
                _excerpt(line),
            )
        self.stray_count += 1
        if len(self.stray_lines) < STRAY_LINES_KEPT:
            self.stray_lines.append(_excerpt(line))

    def note_stderr(self, text: str) -> None:
        """Record text the server wrote to its standard error (keeping only the end)."""
        *complete, self._stderr_partial = (self._stderr_partial + text).split("\n")
        self._stderr_lines.extend(line.rstrip("\r") for line in complete)

    def stderr_ended(self) -> None:
        """The server's standard error is closed: nothing more will come."""
        if self._stderr_partial:
            self._stderr_lines.append(self._stderr_partial)
            self._stderr_partial = ""
        self._stderr_ended.set()

    async def stderr_closed(self) -> None:
        """Wait until the server's standard error is closed."""
        await self._stderr_ended.wait()

    @property
    def stderr_tail(self) -> list[str]:
        """The last lines of standard error (blank ones left out)."""
        lines = [*self._stderr_lines, self._stderr_partial]
        return [line for line in lines if line.strip()]

    async def cause(self, *, settle: float) -> str | None:
        """Why the server went away or never answered, as far as can be told; None when
        nothing points to a cause.

        Args:
            settle: Seconds to wait for the process to end and its standard error to
                close (the pipe may close before the exit is seen).
        """
        with anyio.move_on_after(settle):
            if self.process is not None:
                await _exited(self.process, within=settle)
            await self._stderr_ended.wait()
        parts: list[str] = []
        code = self.returncode
        if code is not None:
            parts.append(_exit_text(code))
        if self.stray_count:
            parts.append(
                f"it wrote {self.stray_count} line(s) to its standard output that are not "
                f"MCP messages (first: {self.stray_lines[0]!r}); a stdio server must write "
                "only MCP messages there (logs belong on standard error)"
            )
        if code is not None:
            tail = self.stderr_tail
            parts.append(
                "the end of its standard error:\n" + "\n".join(f"    {line}" for line in tail)
                if tail
                else "it wrote nothing to its standard error"
            )
        return "; ".join(parts) or None


@asynccontextmanager
async def stdio_transport(
    parameters: StdioServerParameters, run: ServerRun, errlog: TextIO | None
) -> AsyncGenerator[tuple[Any, Any], None]:
    """Start the server process and yield the streams of its MCP messages.

    Args:
        parameters: The command, its arguments, environment and working directory.
        run: Where to record what the process shows.
        errlog: Where the server's standard error goes (default: this process's, at the
            time it writes).

    Raises:
        OSError: The process cannot be started.
    """
    from mcp.client.stdio import get_default_environment
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter

    process = await anyio.open_process(
        [parameters.command, *parameters.args],
        env=get_default_environment() | (parameters.env or {}),
        cwd=parameters.cwd,
        start_new_session=True,  # its own process group, stopped as a whole
    )
    run.process = process
    incoming_writer, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outgoing, outgoing_reader = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()
    encoding, errors = parameters.encoding, parameters.encoding_error_handler

    async def read_stdout() -> None:
        assert process.stdout is not None
        delivering = True
        async with incoming_writer:
            async for line in _lines(process.stdout, encoding, errors):
                if not line.strip():
                    continue
                item: SessionMessage | Exception
                try:
                    message = jsonrpc_message_adapter.validate_json(line, by_name=False)
                    item = SessionMessage(message)
                except ValueError as error:
                    run.note_stray_output(line)
                    item = error
                if not delivering:
                    continue  # keep draining: a server blocked on a full pipe cannot exit
                try:
                    await incoming_writer.send(item)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    delivering = False

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            async with outgoing_reader:
                async for outgoing_message in outgoing_reader:
                    message = outgoing_message.message
                    text = message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await process.stdin.send(text.encode(encoding, errors))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server cannot be written to: end the session's stream rather than leave
            # a request waiting for an answer that cannot come.
            await incoming_writer.aclose()
        finally:
            writer_done.set()

    async def read_stderr() -> None:
        assert process.stderr is not None
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        try:
            async for chunk in process.stderr:
                text = decoder.decode(chunk)
                run.note_stderr(text)
                _forward(text, errlog)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            run.stderr_ended()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_stdout)
        tasks.start_soon(write_stdin)
        tasks.start_soon(read_stderr)
        try:
            yield incoming, outgoing
        finally:
            # Stopping must finish even when the caller is cancelled, or the process
            # would outlive it; every wait inside is bounded.
            with anyio.CancelScope(shield=True):
                incoming.close()  # the stdout reader only drains from here on
                outgoing.close()
                with anyio.move_on_after(FLUSH_GRACE):
                    await writer_done.wait()
                await _stop(process, run)
            tasks.cancel_scope.cancel()


async def _lines(stream: ByteReceiveStream, encoding: str, errors: str) -> AsyncIterator[str]:
    """The lines of a byte stream, until it ends or is closed."""
    decoder = codecs.getincrementaldecoder(encoding)(errors)
    buffer = ""
    try:
        async for chunk in stream:
            *complete, buffer = (buffer + decoder.decode(chunk)).split("\n")
            for line in complete:
                yield line
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        return
    if buffer:
        yield buffer


async def _stop(process: Process, run: ServerRun) -> None:
    """Close the server's input, give it time to exit, then terminate its process group."""
    from mcp.os.posix.utilities import terminate_posix_process_tree

    assert process.stdin is not None
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    if not await _exited(process, within=EXIT_GRACE):
        await terminate_posix_process_tree(process, TERMINATE_GRACE)
        if not await _exited(process, within=TERMINATE_GRACE):
            logger.warning(
                "MCP server %r (process %d) is still alive after SIGKILL; leaving it",
                run.name,
                process.pid,
            )
            return
    with anyio.move_on_after(FLUSH_GRACE):
        await run.stderr_closed()  # its last words, before the pipes are closed
    with anyio.move_on_after(TERMINATE_GRACE), contextlib.suppress(OSError):
        await process.aclose()  # its pipes; the process is already gone


async def _exited(process: Process, *, within: float) -> bool:
    """Whether the process ended within `within` seconds."""
    with anyio.move_on_after(within):
        # Polled: waiting on the process would also wait for its pipes, which a child
        # of the server may hold open long after the server itself exited.
        while process.returncode is None:  # noqa: ASYNC110
            await anyio.sleep(EXIT_POLL_INTERVAL)
    return process.returncode is not None


def _forward(text: str, errlog: TextIO | None) -> None:
    target = errlog or sys.stderr
    try:
        target.write(text)
        target.flush()
    except (OSError, ValueError):  # closed or unwritable: the text is still in the tail
        pass


def _exit_text(code: int) -> str:
    if code >= 0:
        return f"the server process exited with status {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    return f"the server process was killed by {name}"


def _excerpt(line: str, limit: int = 120) -> str:
    line = line.strip()
    return line if len(line) <= limit else line[: limit - 3] + "..."
