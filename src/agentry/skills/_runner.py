"""Running a skill's script files: the `SkillScriptRunner` protocol and the subprocess runner."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from agentry.skills._errors import SkillScriptError
from agentry.skills._script_launch import ScriptLaunch, prepare_launch
from agentry.types import SerializationMixin

if TYPE_CHECKING:
    from agentry.skills._script import SkillScript
    from agentry.skills._skill import Skill

__all__ = ["SkillScriptResult", "SkillScriptRunner", "SubprocessScriptRunner"]

_REAP_SECONDS = 5.0
TRUNCATION_MARKER = "\n[output truncated: {dropped} more bytes after the first {limit}]"


@runtime_checkable
class SkillScriptRunner(Protocol):
    """Runs a skill's script file: any callable `(skill, script, args) -> result`.

    The result may be awaitable; the provider awaits it. Inline (function) scripts do not
    use a runner.
    """

    def __call__(self, skill: Skill, script: SkillScript, args: Sequence[str]) -> Any:
        """Run `script` of `skill` with command-line `args` and return what it produced."""
        ...


@dataclass(frozen=True)
class SkillScriptResult(SerializationMixin):
    """What a script run produced (`to_dict()` is what the model reads).

    Attributes:
        exit_code: The process's exit status (negative: killed by that signal).
        stdout: Its standard output, decoded as UTF-8.
        stderr: Its standard error, decoded as UTF-8.
        timed_out: The script ran past the time limit and was killed.
        truncated: Output went past the size limit; the rest was dropped.
    """

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    truncated: bool = False

    @property
    def ok(self) -> bool:
        """Whether the script finished in time with exit status 0."""
        return self.exit_code == 0 and not self.timed_out


class SubprocessScriptRunner:
    """Runs script files as subprocesses: no shell, in the skill directory, bounded.

    `.py` files run with this Python (`sys.executable`), `.sh` files with bash, and other
    files directly (they must be executable). The script file is opened below the skill
    directory without following links, and the process runs what was opened, so a path
    leading outside (`..`, a symbolic link, even one swapped in meanwhile) never runs.
    The process gets a minimal environment (`PATH`, a UTF-8 locale, and `env`), no
    standard input, and its own process group, which is killed when the time limit
    passes; the run then returns at once, its output so far kept. Needs a POSIX system.

    Args:
        timeout: Seconds a script may run.
        max_output_bytes: Bytes kept of each of stdout and stderr; the rest is dropped and
            a marker says how much.
        env: More environment variables for the scripts.

    Example:
        >>> runner = SubprocessScriptRunner(timeout=10)
    """

    def __init__(
        self,
        *,
        timeout: float = 60.0,
        max_output_bytes: int = 64 * 1024,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be a positive number of seconds")
        if max_output_bytes < 1:
            raise ValueError("max_output_bytes must be at least 1")
        self.timeout = timeout
        self.max_output_bytes = max_output_bytes
        self.env = dict(env or {})

    async def __call__(
        self, skill: Skill, script: SkillScript, args: Sequence[str]
    ) -> SkillScriptResult:
        """Run `script` with `args` and return its exit code and output.

        Raises:
            SkillScriptError: The script is not a regular file of the skill's directory,
                an argument cannot go on a command line, or the script cannot be started.
        """
        launch = prepare_launch(skill, script, args)
        try:
            return await self._run(script.name, launch)
        finally:
            os.close(launch.script_fd)

    async def _run(self, name: str, launch: ScriptLaunch) -> SkillScriptResult:
        loop = asyncio.get_running_loop()
        output = _ScriptOutput(self.max_output_bytes, loop.create_future())
        try:
            transport, _ = await loop.subprocess_exec(
                lambda: output,
                *launch.argv,
                executable=launch.executable,
                cwd=launch.cwd,
                env=self._environment(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                pass_fds=(launch.script_fd,),
            )
        except OSError as error:
            raise SkillScriptError(f"cannot start script {name!r}: {error}") from None
        timed_out = False
        try:
            if not await output.finished_within(self.timeout):
                timed_out = True
                _kill_group(transport.get_pid())
                # Whatever left the group may still hold the pipes: do not wait on it long.
                await output.finished_within(_REAP_SECONDS)
        except BaseException:
            _kill_group(transport.get_pid())
            raise
        finally:
            transport.close()
        return SkillScriptResult(
            exit_code=transport.get_returncode(),
            stdout=output.stdout.text(),
            stderr=output.stderr.text(),
            timed_out=timed_out,
            truncated=output.stdout.dropped > 0 or output.stderr.dropped > 0,
        )

    def _environment(self) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PYTHONIOENCODING": "utf-8",
        }
        env.update(self.env)
        return env


class _ScriptOutput(asyncio.SubprocessProtocol):
    """Collects a script's output as it comes (never pausing the pipes, so a killed
    script's pipes always reach their end) and tells when the script is done."""

    def __init__(self, limit: int, finished: asyncio.Future[None]) -> None:
        self.stdout = _CappedOutput(limit)
        self.stderr = _CappedOutput(limit)
        self._finished = finished

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        (self.stdout if fd == 1 else self.stderr).add(data)

    def connection_lost(self, exc: Exception | None) -> None:
        # called once the process has exited and both pipes are closed
        if not self._finished.done():
            self._finished.set_result(None)

    async def finished_within(self, seconds: float) -> bool:
        """Whether the script is done (exited, output closed) within `seconds`."""
        done, _ = await asyncio.wait([self._finished], timeout=seconds)
        return bool(done)


class _CappedOutput:
    """Keeps the first `limit` bytes of a stream and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.limit - len(self.kept)
        if room > 0:
            self.kept += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))

    def text(self) -> str:
        text = self.kept.decode("utf-8", errors="replace")
        if self.dropped:
            text += TRUNCATION_MARKER.format(dropped=self.dropped, limit=self.limit)
        return text


def _kill_group(pid: int) -> None:
    """Kill the script and everything it started (its process group).

    The group is killed even when the script itself has ended: what it started in the
    background may still hold its output open.
    """
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
