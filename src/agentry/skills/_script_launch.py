"""How a skill's script file is started: the command line, run from a descriptor.

The script is opened once, below the skill's directory without following links, and the
process runs what that descriptor holds (passed to it as `/dev/fd/N`), so a link swapped
in after the check cannot make it run another file. A Python script still sees its own
path as `__file__` and `sys.argv[0]`, and its folder first on `sys.path`; a bash script
sees its path as `$0`.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentry.skills._errors import SkillError, SkillScriptError
from agentry.skills._skill_files import open_skill_file, skill_file_parts

if TYPE_CHECKING:
    from agentry.skills._script import SkillScript
    from agentry.skills._skill import Skill

__all__ = ["ScriptLaunch", "prepare_launch"]

# Runs the Python source read from descriptor argv[2] as the script at path argv[1].
_PYTHON_BOOTSTRAP = """\
import sys
def _run_skill_script():
    import os
    path, fd = sys.argv[1], int(sys.argv[2])
    with os.fdopen(fd, "rb") as file:
        source = file.read()
    sys.argv[:] = [path, *sys.argv[3:]]
    sys.path[0] = os.path.dirname(path)
    globals()["__file__"] = path
    return compile(source, path, "exec")
exec(_run_skill_script())
"""
_EXECUTABLE_BITS = stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH


@dataclass(frozen=True)
class ScriptLaunch:
    """A script ready to start: close `script_fd` once the process has started (or failed).

    Attributes:
        argv: The command line.
        executable: The file to execute instead of `argv[0]`, if any.
        cwd: The skill's directory, where the script runs.
        script_fd: The open script, passed to the process.
    """

    argv: list[str]
    executable: str | None
    cwd: Path
    script_fd: int


def prepare_launch(skill: Skill, script: SkillScript, args: Sequence[str]) -> ScriptLaunch:
    """Open `script` of `skill` and build the command that runs it with `args`.

    Raises:
        SkillScriptError: The script is inline, the skill has no directory, the file is
            not a regular file of the skill's directory (or not executable, when it must
            be), or an argument cannot go on a command line.
    """
    directory = skill.directory
    if script.path is None:
        raise SkillScriptError(f"script {script.name!r} is inline; call it, do not run it")
    if directory is None:
        raise SkillScriptError(
            f"skill {skill.name!r} has no directory, so its script file "
            f"{str(script.path)!r} cannot be run"
        )
    arguments = _command_arguments(script.name, args)
    try:
        parts = skill_file_parts(directory, script.path)
        directory = directory.resolve()
        fd = open_skill_file(directory, "/".join(parts))
    except SkillError as error:
        raise SkillScriptError(f"refusing script {script.name!r}: {error}") from None
    try:
        argv, executable = _command(script.name, directory.joinpath(*parts), fd, arguments)
    except BaseException:
        os.close(fd)
        raise
    return ScriptLaunch(argv=argv, executable=executable, cwd=directory, script_fd=fd)


def _command(name: str, path: Path, fd: int, arguments: list[str]) -> tuple[list[str], str | None]:
    suffix = path.suffix.lower()
    if suffix == ".py":
        return [sys.executable, "-c", _PYTHON_BOOTSTRAP, str(path), str(fd), *arguments], None
    if suffix == ".sh":
        bash = shutil.which("bash")
        if bash is None:
            raise SkillScriptError(f"script {name!r} needs bash, which is not on PATH")
        return [bash, "-c", f". /dev/fd/{fd}", str(path), *arguments], None
    if not os.fstat(fd).st_mode & _EXECUTABLE_BITS:
        raise SkillScriptError(
            f"script {name!r} is not executable; mark it executable or use a .py or .sh file"
        )
    return [str(path), *arguments], f"/dev/fd/{fd}"


def _command_arguments(name: str, args: Sequence[str]) -> list[str]:
    arguments = [str(a) for a in args]
    for number, argument in enumerate(arguments, start=1):
        if "\x00" in argument:
            raise SkillScriptError(
                f"argument {number} of script {name!r} holds a NUL character, which a "
                "command line cannot carry; remove it"
            )
        try:
            argument.encode("utf-8")
        except UnicodeEncodeError:
            raise SkillScriptError(
                f"argument {number} of script {name!r} holds a lone surrogate, which is not "
                "text; remove it"
            ) from None
    return arguments
