"""Tool approvals in durable agent runs wait in the database, and are answered from any
process; a run is followed through its recorded steps."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agentry import Agent, tool
from agentry.cli import main
from agentry.clients.scripted import ScriptedChatClient
from agentry.durable import NEW_MESSAGE_DECLINED_RESULT, DurableRunError, DurableRuntime
from agentry.types import AgentResponseUpdate, Message
from tests.durable.approval_app import CALLS_URL_ENV, Calls, build_mailer
from tests.durable.worker_processes import start_worker as start_worker_process
from tests.durable.worker_processes import stop_workers, worker_environment

ROOT = Path(__file__).resolve().parents[2]
APP = "tests.durable.approval_app:create_runtime"
StartWorker = Callable[[str], "subprocess.Popen[str]"]


@pytest.fixture
def calls(tmp_path: Path) -> Calls:
    return Calls(f"sqlite:///{tmp_path / 'calls.sqlite'}")


async def test_an_approval_waits_and_bad_answers_leave_the_run_waiting(
    tmp_path: Path, calls: Calls
) -> None:
    runtime = DurableRuntime(tmp_path / "runs.sqlite", takeover_after=None)
    runtime.register_agent(build_mailer(calls))
    async with runtime:
        run = await runtime.start_agent("mailer", "Tell Ada I am late.", run_id="mail-1")
        (request,) = await run.wait_for_requests(timeout=60)
        assert request.type == "function_approval_request"
        assert request.function_call is not None
        assert request.function_call.name == "send_email"
        with pytest.raises(DurableRunError, match=r"must be a bool \(True approves"):
            await run.send_response("mail-call", "yes")  # pyright: ignore[reportArgumentType]
        with pytest.raises(DurableRunError, match="does not wait on an approval 'other'"):
            await run.send_response("other", True)
        with pytest.raises(DurableRunError, match="no durable run with id 'nobody'"):
            await runtime.agent_run("nobody").send_response("mail-call", True)
        with pytest.raises(DurableRunError, match="is an agent run, not a workflow run"):
            await runtime.run("mail-1").pending_requests()
        assert [r.id for r in await run.pending_requests()] == ["mail-call"]
        assert await run.status() == "PENDING"
        assert [kind for kind, _ in calls.all()] == ["model"]  # the tool waits

        await run.send_response("mail-call", True)
        response = await run.result(timeout=60)
        assert response.text == "Done: sent to ada@example.com."
        assert [kind for kind, _ in calls.all()] == ["model", "tool", "model"]
        with pytest.raises(DurableRunError, match="answered already, or never asked"):
            await run.send_response("mail-call", False)
        updates = [u async for u in run.stream()]
        assert _shape(updates) == [
            ("assistant", ["function_call"]),
            ("assistant", ["function_approval_request"]),
            ("tool", ["function_result"]),
            ("assistant", ["text"]),
        ]


async def test_a_rejected_call_does_not_run(tmp_path: Path, calls: Calls) -> None:
    runtime = DurableRuntime(tmp_path / "runs.sqlite", takeover_after=None)
    runtime.register_agent(build_mailer(calls))
    async with runtime:
        run = await runtime.start_agent("mailer", "Tell Ada I am late.")
        (request,) = await run.wait_for_requests(timeout=60)
        await run.send_response(str(request.id), False)
        response = await run.result(timeout=60)
    assert response.text.startswith("Done: Error: the user did not approve this tool call")
    assert [kind for kind, _ in calls.all()] == ["model", "model"]


async def test_a_new_message_declines_the_waiting_call_and_the_run_goes_on_with_it(
    tmp_path: Path, calls: Calls
) -> None:
    runtime = DurableRuntime(tmp_path / "runs.sqlite", takeover_after=None)
    runtime.register_agent(build_mailer(calls))
    new_message = Message("user", "Do not email her; I will call.", message_id="m2")
    async with runtime:
        run = await runtime.start_agent("mailer", "Tell Ada I am late.")
        await run.wait_for_requests(timeout=60)
        declined = await run.send_message(new_message)
        # Sent again (the sender did not know the first one went): not delivered twice.
        with contextlib.suppress(DurableRunError):
            await run.send_message(new_message)
        response = await run.result(timeout=60)
        messages = await run.messages()
        with pytest.raises(DurableRunError, match="does not wait on approvals, so it takes no"):
            await run.send_message(Message("user", "And one more thing."))
    assert [r.id for r in declined] == ["mail-call"]
    assert response.text == f"Done: {NEW_MESSAGE_DECLINED_RESULT}."
    assert [m.role for m in messages] == ["user", "assistant", "tool", "user", "assistant"]
    assert messages[3].text == "Do not email her; I will call."
    assert [kind for kind, _ in calls.all()] == ["model", "model"]


def _shape(updates: list[AgentResponseUpdate]) -> list[tuple[str | None, list[str]]]:
    return [(u.role, [c.type for c in u.contents]) for u in updates]


@pytest.fixture
def environment(tmp_path: Path) -> dict[str, str]:
    return worker_environment(
        f"sqlite:///{tmp_path / 'runs.sqlite'}",
        {CALLS_URL_ENV: f"sqlite:///{tmp_path / 'calls.sqlite'}"},
    )


@pytest.fixture
def start_worker(environment: dict[str, str]) -> Iterator[StartWorker]:
    """Starts `agentry worker` processes (stopped at the end), once each says it runs."""
    started: list[subprocess.Popen[str]] = []

    def start(worker_id: str) -> subprocess.Popen[str]:
        started.append(start_worker_process(APP, worker_id, environment))
        return started[-1]

    yield start
    stop_workers(started)


def _cli(environment: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentry.cli", "workflow", *arguments, "--app", APP],
        capture_output=True,
        text=True,
        env=environment,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


async def test_a_waiting_run_survives_its_worker_and_another_worker_finishes_it(
    start_worker: StartWorker,
    environment: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    start = start_worker
    first = start("first")
    client = DurableRuntime(environment["AGENTRY_DURABLE_DATABASE_URL"])
    client.register_agent(build_mailer())
    try:
        run = await client.start_agent("mailer", "Tell Ada I am late.", run_id="mail-1")
        updates: list[AgentResponseUpdate] = []

        async def follow() -> None:
            async for update in client.agent_run("mail-1").stream():
                updates.append(update)

        follower = asyncio.create_task(follow())
        await run.wait_for_requests(timeout=60)
        first.send_signal(signal.SIGKILL)
        assert first.wait(timeout=30) == -signal.SIGKILL

        # While no worker runs: the CLI (here) shows the request and refuses a wrong
        # answer; the CLI in another process approves.
        for name in ("AGENTRY_DURABLE_DATABASE_URL", CALLS_URL_ENV):
            monkeypatch.setenv(name, environment[name])
        assert await asyncio.to_thread(main, ["workflow", "status", "mail-1", "--app", APP]) == 0
        shown = capsys.readouterr().out
        assert "run mail-1: PENDING" in shown
        assert "request mail-call: approve the call send_email(" in shown
        wrong = ["workflow", "send-response", "mail-1", "yes", "--app", APP]
        assert await asyncio.to_thread(main, wrong) == 1
        assert "does not fit a tool approval" in capsys.readouterr().err
        answered = await asyncio.to_thread(_cli, environment, "send-response", "mail-1", "approve")
        assert answered.returncode == 0, answered.stderr

        second = start("second")  # takes the silent worker's run over
        response = await run.result(timeout=90)
        await asyncio.wait_for(follower, 30)  # a hang guard
    finally:
        client.shutdown()
    assert response.text == "Done: sent to ada@example.com."
    by_process = Calls(environment[CALLS_URL_ENV]).all()
    assert by_process == [("model", first.pid), ("tool", second.pid), ("model", second.pid)]
    assert _shape(updates) == [
        ("assistant", ["function_call"]),
        ("assistant", ["function_approval_request"]),
        ("tool", ["function_result"]),
        ("assistant", ["text"]),
    ]


async def test_the_calls_of_an_approved_turn_are_recorded_in_the_turns_order(
    tmp_path: Path,
) -> None:
    from dbos import DBOS

    ran: list[str] = []

    @tool
    async def look_up(name: str) -> str:
        """Find an address (slowly: it finishes after send_email)."""
        await asyncio.sleep(0.05)
        ran.append("look_up")
        return f"{name}@example.com"

    @tool(approval_mode="always_require")
    def send_email(to: str) -> str:
        """Send an email."""
        ran.append("send_email")
        return f"sent to {to}"

    calls = [("look_up", {"name": "ada"}, "c1"), ("send_email", {"to": "ada"}, "c2")]
    model = ScriptedChatClient([ScriptedChatClient.function_calls(calls), "Done."])
    runtime = DurableRuntime(tmp_path / "runs.sqlite", takeover_after=None)
    runtime.register_agent(Agent(model, name="mailer", tools=[look_up, send_email]))
    async with runtime:
        run = await runtime.start_agent("mailer", "Email Ada.", run_id="turn-1")
        (request,) = await run.wait_for_requests(timeout=60)
        assert request.id == "c2"
        assert ran == []  # the whole turn waits for the approval
        await run.send_response("c2", True)
        assert (await run.result(timeout=60)).text == "Done."
        steps = [s["function_name"] for s in await DBOS.list_workflow_steps_async("turn-1")]
    assert sorted(ran) == ["look_up", "send_email"]
    tools = [name for name in steps if name.startswith("agentry.tool:")]
    assert tools == ["agentry.tool:look_up", "agentry.tool:send_email"]
    assert steps[-1] == "agentry.model"
