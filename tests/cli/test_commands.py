import argparse
import importlib.util
import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

import agentry
from agentry.cli import _serve, main
from tests.cli.conftest import Agentry


def test_version(agentry: Agentry) -> None:
    result = agentry("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"agentry {agentry_version()}"


def agentry_version() -> str:
    return agentry.__version__


def test_verbose_shows_agentry_logs(agentry: Agentry, tmp_path: Path) -> None:
    (tmp_path / "lost.py").write_text(
        "from agentry import Agent\n"
        "from agentry.clients.scripted import ScriptedChatClient\n"
        "client = ScriptedChatClient([ScriptedChatClient.function_call('nope'), 'ok'])\n"
        "agent = Agent(client=client)\n"
    )
    quiet = agentry("run", "lost:agent", "go")
    assert "unknown tool" not in quiet.stderr
    loud = agentry("-v", "run", "lost:agent", "go")
    assert loud.returncode == 0
    assert "WARNING agentry.tools: the model called the unknown tool" in loud.stderr
    after_the_command = agentry("run", "lost:agent", "go", "--verbose")
    assert "the model called the unknown tool" in after_the_command.stderr


def test_missing_command_is_a_usage_error(agentry: Agentry) -> None:
    result = agentry()
    assert result.returncode == 2
    assert "COMMAND" in result.stderr


@pytest.fixture
def echo_protocol() -> Iterator[list[argparse.Namespace]]:
    """A protocol `echo` whose server module records the arguments it was given."""
    received: list[argparse.Namespace] = []
    module = types.ModuleType("agentry.echo._serve")

    def add_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("target")
        parser.add_argument("--port", type=int, default=8000)

    def run_from_arguments(arguments: argparse.Namespace) -> int:
        received.append(arguments)
        return 0

    module.add_arguments = add_arguments  # type: ignore[attr-defined]
    module.run_from_arguments = run_from_arguments  # type: ignore[attr-defined]
    sys.modules["agentry.echo._serve"] = module
    _serve.PROTOCOLS["echo"] = ("the echo server", "echo", "agentry.echo._serve")
    try:
        yield received
    finally:
        del sys.modules["agentry.echo._serve"]
        del _serve.PROTOCOLS["echo"]


def test_serve_hands_its_arguments_to_the_protocol(
    echo_protocol: list[argparse.Namespace],
) -> None:
    assert main(["serve", "echo", "app:agent", "--port", "9001"]) == 0
    (arguments,) = echo_protocol
    assert (arguments.target, arguments.port) == ("app:agent", 9001)


def test_serve_names_the_missing_piece(capsys: pytest.CaptureFixture[str]) -> None:
    _serve.PROTOCOLS["ghost"] = ("the ghost server", "ghost", "agentry.ghost._serve")
    try:
        assert main(["serve", "ghost", "app:agent"]) == 1
    finally:
        del _serve.PROTOCOLS["ghost"]
    assert "`agentry serve ghost` needs the ghost server (agentry.ghost._serve)" in (
        capsys.readouterr().err
    )


def test_serve_names_the_missing_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def import_module(name: str) -> types.ModuleType:
        raise ModuleNotFoundError("No module named 'a2a'", name="a2a")

    monkeypatch.setattr(_serve.importlib, "import_module", import_module)
    assert main(["serve", "a2a", "app:agent"]) == 1
    assert "pip install 'agentry[a2a]'" in capsys.readouterr().err


WORKFLOW_MODULE = """
from agentry.workflows import WorkflowBuilder, WorkflowContext, executor

@executor
async def double(n: str, ctx: WorkflowContext[str]) -> None:
    await ctx.send_message(n * 2)

@executor
async def shout(text: str, ctx: WorkflowContext[None, str]) -> None:
    await ctx.yield_output(text.upper())

workflow = WorkflowBuilder(start_executor=double).add_edge(double, shout).build()
"""


def test_workflow_graph(agentry: Agentry, tmp_path: Path) -> None:
    if importlib.util.find_spec("agentry.workflows") is None:
        result = agentry("workflow", "graph", "flows:workflow")
        assert result.returncode == 1
        assert "needs agentry.workflows" in result.stderr
        return
    (tmp_path / "flows.py").write_text(WORKFLOW_MODULE)
    mermaid = agentry("workflow", "graph", "flows:workflow")
    assert mermaid.returncode == 0, mermaid.stderr
    assert "double" in mermaid.stdout
    assert "shout" in mermaid.stdout
    dot = agentry("workflow", "graph", "flows:workflow", "--format", "dot", "-o", "g.dot")
    assert dot.returncode == 0, dot.stderr
    assert (tmp_path / "g.dot").read_text().startswith("digraph")
    run = agentry("run", "flows:workflow", "ab")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "ABAB\n"
    scripted = agentry("run", "flows:workflow", "ab", "--json")
    lines = [json.loads(line) for line in scripted.stdout.splitlines()]
    assert {"type": "output", "executor_id": "shout", "data": "ABAB"} in lines
    assert lines[-1] == {"type": "result", "outputs": ["ABAB"]}


HELLO_AGENT = (
    "from agentry import Agent\n"
    "from agentry.clients.scripted import ScriptedChatClient\n"
    "agent = Agent(client=ScriptedChatClient(['Hi']), name='hello', description='Says hi')\n"
)


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_a2a(agentry: Agentry, tmp_path: Path) -> None:
    (tmp_path / "hello.py").write_text(HELLO_AGENT)
    if importlib.util.find_spec("agentry.a2a") is None:
        result = agentry("serve", "a2a", "hello:agent")
        assert result.returncode == 1
        assert "`agentry serve a2a` needs the A2A server (agentry.a2a._serve)" in result.stderr
        return
    import os
    import subprocess
    import time
    import urllib.request

    from tests.cli.conftest import SRC

    port = _free_port()
    command = ["serve", "a2a", "hello:agent", "--port", str(port), "--database", "none"]
    server = subprocess.Popen(
        [sys.executable, "-m", "agentry.cli", *command],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": SRC},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        card: dict[str, object] = {}
        for _ in range(300):  # until the server listens (or gave up)
            try:
                url = f"http://127.0.0.1:{port}/.well-known/agent-card.json"
                with urllib.request.urlopen(url, timeout=5) as response:
                    card = json.loads(response.read())
                break
            except OSError:
                assert server.poll() is None, "the server exited"
                time.sleep(0.1)
        assert card["name"] == "hello"
        assert card["description"] == "Says hi"
    finally:
        server.terminate()
        server.wait(timeout=30)
