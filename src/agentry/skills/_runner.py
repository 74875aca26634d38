"""Running a skill's script files: the `SkillScriptRunner` protocol and the subprocess runner."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from agentry.skills._errors import SkillError, SkillScriptError
from agentry.skills._file_skill import contained_path

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
class SkillScriptResult:
    """What a script run produced.

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

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (what the model reads)."""
        return asdict(self)


class SubprocessScriptRunner:
    """Runs script files as subprocesses: no shell, in the skill directory, bounded.

    `.py` files run with this Python (`sys.executable`), `.sh` files with bash, and other
    files directly (they must be executable). The process gets a minimal environment
    (`PATH`, a UTF-8 locale, and `env`), no standard input, and its own process group,
    which is killed when the time limit passes. A script path leading outside the skill
    directory (`..`, a symbolic link) is refused before anything runs.

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
            SkillScriptError: The script is not a file of the skill's directory, or cannot
                be started.
        """
        command, directory = self.command(skill, script, args)
        try:
            process = await asyncio.create_subprocess_exec(
                *command,
                cwd=directory,
                env=self._environment(),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=sys.platform != "win32",
            )
        except OSError as error:
            raise SkillScriptError(f"cannot start script {script.name!r}: {error}") from None
        assert process.stdout is not None
        assert process.stderr is not None
        stdout = _CappedOutput(self.max_output_bytes)
        stderr = _CappedOutput(self.max_output_bytes)
        timed_out = False
        try:
            await asyncio.wait_for(
                asyncio.gather(
                    stdout.drain(process.stdout), stderr.drain(process.stderr), process.wait()
                ),
                self.timeout,
            )
        except asyncio.TimeoutError:
            timed_out = True
            _kill(process)
            with contextlib.suppress(asyncio.TimeoutError):
                # A process that left the group may still hold the pipes; do not wait on it.
                await asyncio.wait_for(process.wait(), _REAP_SECONDS)
        except BaseException:
            _kill(process)
            raise
        return SkillScriptResult(
            exit_code=process.returncode,
            stdout=stdout.text(),
            stderr=stderr.text(),
            timed_out=timed_out,
            truncated=stdout.dropped > 0 or stderr.dropped > 0,
        )

    def command(
        self, skill: Skill, script: SkillScript, args: Sequence[str]
    ) -> tuple[list[str], Path]:
        """The command line for `script` and the directory it runs in.

        Raises:
            SkillScriptError: The script is not a file inside the skill's directory.
        """
        directory = skill.directory
        if script.path is None:
            raise SkillScriptError(f"script {script.name!r} is inline; call it, do not run it")
        if directory is None:
            raise SkillScriptError(
                f"skill {skill.name!r} has no directory, so its script file "
                f"{str(script.path)!r} cannot be run"
            )
        try:
            path = contained_path(directory, script.path)
        except SkillError as error:
            raise SkillScriptError(f"refusing script {script.name!r}: {error}") from None
        if not path.is_file():
            raise SkillScriptError(f"script {script.name!r} is not a file at {path}")
        arguments = [str(a) for a in args]
        suffix = path.suffix.lower()
        if suffix == ".py":
            return [sys.executable, str(path), *arguments], directory.resolve()
        if suffix == ".sh":
            bash = shutil.which("bash")
            if bash is None:
                raise SkillScriptError(f"script {script.name!r} needs bash, which is not on PATH")
            return [bash, str(path), *arguments], directory.resolve()
        if not os.access(path, os.X_OK):
            raise SkillScriptError(
                f"script {script.name!r} is not executable; mark it executable or use a "
                ".py or .sh file"
            )
        return [str(path), *arguments], directory.resolve()

    def _environment(self) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PYTHONIOENCODING": "utf-8",
        }
        if sys.platform == "win32":  # Windows processes need these to start at all
            for name in ("SYSTEMROOT", "TEMP", "TMP"):
                if name in os.environ:
                    env[name] = os.environ[name]
        env.update(self.env)
        return env


class _CappedOutput:
    """Keeps the first `limit` bytes of a stream and counts the rest while draining it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.dropped = 0

    async def drain(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            room = self.limit - len(self.kept)
            if room > 0:
                self.kept += chunk[:room]
            self.dropped += max(0, len(chunk) - max(room, 0))

    def text(self) -> str:
        text = self.kept.decode("utf-8", errors="replace")
        if self.dropped:
            text += TRUNCATION_MARKER.format(dropped=self.dropped, limit=self.limit)
        return text


def _kill(process: asyncio.subprocess.Process) -> None:
    """Kill the script and everything it started (its process group).

    The group is killed even when the script itself has ended: what it started in the
    background may still hold its output open.
    """
    try:
        if sys.platform == "win32":
            if process.returncode is None:
                process.kill()
        else:
            os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
