from __future__ import annotations

import asyncio
import gc
import os
import sys
import warnings
from pathlib import Path

import pytest

from agentry.skills import (
    FileSkill,
    InlineSkill,
    SkillFrontmatter,
    SkillScript,
    SkillScriptError,
    SkillScriptResult,
    SkillScriptRunner,
    SubprocessScriptRunner,
)
from agentry.skills import _runner as runner_module

from .helpers import write_skill

posix_only = pytest.mark.skipif(os.name == "nt", reason="POSIX processes and links")


def _skill(tmp_path: Path, files: dict[str, str]) -> FileSkill:
    return FileSkill(write_skill(tmp_path, "tools", files=files))


async def _run(
    runner: SubprocessScriptRunner, skill: FileSkill, name: str, *args: str
) -> SkillScriptResult:
    script = skill.get_script(name)
    assert script is not None, [s.name for s in skill.scripts]
    return await asyncio.wait_for(runner(skill, script, list(args)), timeout=30)


def test_the_subprocess_runner_is_a_script_runner() -> None:
    assert isinstance(SubprocessScriptRunner(), SkillScriptRunner)


async def test_a_python_script_runs_in_the_skill_directory_with_its_arguments(
    tmp_path: Path,
) -> None:
    skill = _skill(
        tmp_path,
        {
            "scripts/show.py": (
                "import os, sys\n"
                "print(os.getcwd())\n"
                "print(sys.argv[1:])\n"
                "print(sys.executable)\n"
                "print(sorted(os.environ))\n"
                "print(open('references/data.txt').read())\n"
            ),
            "references/data.txt": "data",
        },
    )
    result = await _run(
        SubprocessScriptRunner(env={"EXTRA": "1"}), skill, "scripts/show.py", "a b", "$HOME"
    )
    assert result.ok
    assert (result.exit_code, result.stderr, result.timed_out, result.truncated) == (
        0,
        "",
        False,
        False,
    )
    cwd, argv, executable, env, data = result.stdout.splitlines()
    assert Path(cwd) == skill.directory
    assert argv == "['a b', '$HOME']"  # no shell: nothing is split or expanded
    assert executable == sys.executable
    assert "HOME" not in env
    assert "EXTRA" in env
    assert "PATH" in env
    assert data == "data"


@posix_only
async def test_a_shell_script_runs_with_bash(tmp_path: Path) -> None:
    skill = _skill(tmp_path, {"scripts/hello.sh": 'echo "hello $1 from ${BASH_VERSION%%.*}"\n'})
    result = await _run(SubprocessScriptRunner(), skill, "scripts/hello.sh", "ada")
    assert result.ok
    assert result.stdout.startswith("hello ada from ")


@posix_only
async def test_other_scripts_run_directly_when_executable(tmp_path: Path) -> None:
    skill = _skill(tmp_path, {"scripts/tool": "#!/bin/sh\necho direct $1\n"})
    tool = skill.directory / "scripts/tool"
    runner = SubprocessScriptRunner()
    with pytest.raises(SkillScriptError, match="is not executable"):
        await _run(runner, skill, "scripts/tool", "x")
    tool.chmod(0o755)
    result = await _run(runner, skill, "scripts/tool", "x")
    assert result.stdout == "direct x\n"


async def test_a_failing_script_reports_its_exit_code_and_stderr(tmp_path: Path) -> None:
    skill = _skill(
        tmp_path,
        {
            "scripts/fail.py": "import sys\nprint('partial')\nprint('bad input', file=sys.stderr)\nsys.exit(3)\n"
        },
    )
    result = await _run(SubprocessScriptRunner(), skill, "scripts/fail.py")
    assert not result.ok
    assert result.exit_code == 3
    assert result.stdout == "partial\n"
    assert result.stderr == "bad input\n"
    assert result.to_dict() == {
        "exit_code": 3,
        "stdout": "partial\n",
        "stderr": "bad input\n",
        "timed_out": False,
        "truncated": False,
    }


@posix_only
async def test_a_script_past_its_time_limit_is_killed_with_its_children(tmp_path: Path) -> None:
    skill = _skill(
        tmp_path,
        {
            "scripts/slow.py": (
                "import subprocess, sys, time\n"
                "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                "print(child.pid, flush=True)\n"
                "time.sleep(60)\n"
            )
        },
    )
    result = await _run(SubprocessScriptRunner(timeout=1.5), skill, "scripts/slow.py")
    assert result.timed_out
    assert not result.ok
    assert result.exit_code is not None
    assert result.exit_code < 0
    child = int(result.stdout)
    await asyncio.wait_for(_gone(child), timeout=10)


async def _gone(pid: int) -> None:
    while _alive(pid):
        await asyncio.sleep(0.05)


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting to be reaped does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    return True


@posix_only
async def test_a_cancelled_run_kills_the_script(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    skill = _skill(
        tmp_path,
        {
            "scripts/hang.py": (
                "import os, time\n"
                f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
                "time.sleep(60)\n"
            )
        },
    )
    script = skill.get_script("scripts/hang.py")
    assert script is not None
    task = asyncio.ensure_future(SubprocessScriptRunner(timeout=60)(skill, script, []))
    await asyncio.wait_for(_exists(pid_file), timeout=10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(_gone(int(pid_file.read_text())), timeout=10)


async def _exists(path: Path) -> None:
    while not _written(path):
        await asyncio.sleep(0.05)


def _written(path: Path) -> bool:
    return path.exists() and bool(path.read_text())


async def test_huge_output_is_cut_with_a_marker(tmp_path: Path) -> None:
    skill = _skill(
        tmp_path,
        {
            "scripts/loud.py": (
                "import sys\nsys.stdout.write('x' * 3_000_000)\nsys.stderr.write('e' * 10)\n"
            )
        },
    )
    result = await _run(SubprocessScriptRunner(max_output_bytes=1000), skill, "scripts/loud.py")
    assert result.exit_code == 0
    assert result.truncated
    assert result.stdout == "x" * 1000 + (
        "\n[output truncated: 2999000 more bytes after the first 1000]"
    )
    assert result.stderr == "e" * 10


async def test_a_script_path_with_dotdot_is_refused_before_it_runs(tmp_path: Path) -> None:
    outside = tmp_path / "evil.py"
    ran = tmp_path / "ran"
    outside.write_text(f"open({str(ran)!r}, 'w').close()\n", encoding="utf-8")
    skill = _skill(tmp_path / "skills", {})
    script = SkillScript("evil", path="../../evil.py")
    with pytest.raises(SkillScriptError, match="leads outside the skill directory"):
        await SubprocessScriptRunner()(skill, script, [])
    assert not ran.exists()


@posix_only
async def test_a_script_linking_outside_the_skill_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "evil.py"
    ran = tmp_path / "ran"
    outside.write_text(f"open({str(ran)!r}, 'w').close()\n", encoding="utf-8")
    skill = _skill(tmp_path / "skills", {"scripts/ok.py": ""})
    (skill.directory / "scripts" / "link.py").symlink_to(outside)
    assert [s.name for s in skill.scripts] == ["scripts/ok.py"]  # not offered
    script = SkillScript("link", path="scripts/link.py")  # and not run when asked for
    with pytest.raises(SkillScriptError, match=r"refusing script 'link'.*is a symbolic link"):
        await SubprocessScriptRunner()(skill, script, [])
    assert not ran.exists()


async def test_a_missing_script_file_is_a_clear_error(tmp_path: Path) -> None:
    skill = _skill(tmp_path, {})
    with pytest.raises(SkillScriptError, match=r"'scripts/gone\.py' is not a file in the skill"):
        await SubprocessScriptRunner()(skill, SkillScript("gone", path="scripts/gone.py"), [])


async def test_a_file_script_needs_a_skill_directory() -> None:
    skill = InlineSkill(
        frontmatter=SkillFrontmatter(name="code", description="d"),
        content="c",
        scripts=[SkillScript("run", path="run.py")],
    )
    with pytest.raises(SkillScriptError, match="has no directory"):
        await SubprocessScriptRunner()(skill, skill.scripts[0], [])


async def test_an_inline_script_is_not_run_as_a_process(tmp_path: Path) -> None:
    skill = _skill(tmp_path, {})
    with pytest.raises(SkillScriptError, match="is inline"):
        await SubprocessScriptRunner()(skill, SkillScript("f", function=lambda: 1), [])


def test_runner_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="timeout"):
        SubprocessScriptRunner(timeout=0)
    with pytest.raises(ValueError, match="max_output_bytes"):
        SubprocessScriptRunner(max_output_bytes=0)


@posix_only
async def test_a_python_script_sees_its_own_path_and_imports_its_neighbours(
    tmp_path: Path,
) -> None:
    skill = _skill(
        tmp_path,
        {
            "scripts/main.py": (
                "import sys\n"
                "from helper import VALUE\n"
                "print(__file__)\n"
                "print(sys.argv)\n"
                "print(__name__, VALUE)\n"
            ),
            "scripts/helper.py": "VALUE = 42\n",
        },
    )
    result = await _run(SubprocessScriptRunner(), skill, "scripts/main.py", "x")
    path = str(skill.directory / "scripts" / "main.py")
    assert result.stderr == ""
    assert result.stdout.splitlines() == [path, str([path, "x"]), "__main__ 42"]


@posix_only
async def test_a_shell_script_sees_its_own_path_as_dollar_zero(tmp_path: Path) -> None:
    skill = _skill(tmp_path, {"scripts/where.sh": 'echo "$0" "$#" "$@"\nexit 4\n'})
    result = await _run(SubprocessScriptRunner(), skill, "scripts/where.sh", "a b", "c")
    assert result.exit_code == 4
    assert result.stdout == f"{skill.directory / 'scripts' / 'where.sh'} 2 a b c\n"


@pytest.mark.parametrize(
    ("argument", "problem"),
    [("a\x00b", "holds a NUL character"), ("\ud800", "holds a lone surrogate")],
)
async def test_an_argument_no_command_line_can_carry_is_a_script_error(
    tmp_path: Path, argument: str, problem: str
) -> None:
    ran = tmp_path / "ran"
    skill = _skill(tmp_path / "skills", {"scripts/run.py": f"open({str(ran)!r}, 'w').close()\n"})
    with pytest.raises(SkillScriptError, match=f"argument 2 of script 'scripts/run.py' {problem}"):
        await _run(SubprocessScriptRunner(), skill, "scripts/run.py", "fine", argument)
    assert not ran.exists()


SPAM = "import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n"


@posix_only
async def test_a_timed_out_script_still_writing_returns_as_soon_as_it_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Leave only a hang guard for processes that escaped the kill: this one did not.
    monkeypatch.setattr(runner_module, "_REAP_SECONDS", 600.0)
    skill = _skill(tmp_path, {"scripts/spam.py": SPAM})
    runner = SubprocessScriptRunner(timeout=1, max_output_bytes=1000)

    result = await _run(runner, skill, "scripts/spam.py")

    assert result.timed_out
    assert result.exit_code is not None
    assert result.exit_code < 0
    assert result.truncated
    assert result.stdout.startswith("y" * 1000 + "\n[output truncated: ")


@posix_only
def test_a_timed_out_script_leaves_nothing_open_when_the_loop_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill = _skill(tmp_path, {"scripts/spam.py": SPAM})
    script = skill.get_script("scripts/spam.py")
    assert script is not None
    gc.collect()  # what earlier tests left for the collector is not this run's
    unraisable: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = asyncio.run(SubprocessScriptRunner(timeout=1)(skill, script, []))
        gc.collect()

    assert result.timed_out
    assert unraisable == []
    # The script's pipes and process; sockets another test left open are not its own.
    leaked = [
        str(w.message)
        for w in caught
        if issubclass(w.category, ResourceWarning)
        and "Socket" not in str(w.message)
        and "socket" not in str(w.message)
    ]
    assert leaked == []
