"""Usage limits count over a whole durable agent run, across its waits for approval and
across a recovery after its worker was killed; a model call retried by its client is one
step, its attempts inside.

A worker runs `shipper` (two model requests per run) until it waits for the approval of
its first tool call, and is killed (SIGKILL). The approval is sent while no worker runs;
the worker started again replays the first model call (the model is not called again),
runs the approved tool and makes the second request; the third, which only the counts
from before the crash and after it together forbid, is never made: the run fails with
`UsageLimitExceededError`.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from agentry import Agent, RetryPolicy
from agentry.durable import DurableRunFailedError, DurableRuntime
from agentry.openai import OpenAIChatCompletionClient
from agentry.testing import load_exchanges
from tests.call_log import read_calls
from tests.clients.faulty_server import FaultyServer
from tests.durable.usage_app import CALLS_ENV, create_runtime
from tests.durable.worker_processes import start_worker, stop_workers
from tests.openai.conftest import RECORDINGS, error_exchange

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
APP = "tests.durable.usage_app:create_runtime"


async def test_a_recovered_run_counts_the_requests_made_before_the_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = str(tmp_path / "calls.sqlite")
    monkeypatch.setenv("AGENTRY_DURABLE_DATABASE_URL", f"sqlite:///{tmp_path / 'runs.sqlite'}")
    monkeypatch.setenv(CALLS_ENV, calls)
    environment = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    client = create_runtime()  # not launched: it queues, reads and answers runs
    try:
        first = start_worker(APP, "worker-1", environment)
        try:
            run = await client.start_agent("shipper", "Ship order 7.", run_id="ship-7")
            (request,) = await run.wait_for_requests(timeout=60)
        finally:
            first.send_signal(signal.SIGKILL)
            stop_workers([first])  # reaps it and closes its pipe
        await run.send_response(str(request.id), True)
        second = start_worker(APP, "worker-1", environment)
        try:
            with pytest.raises(DurableRunFailedError) as failed:
                await run.result(timeout=60)
        finally:
            stop_workers([second])
    finally:
        client.shutdown()
    assert failed.value.error_type == "UsageLimitExceededError"
    assert "run's limit of 2 model requests" in str(failed.value)
    by_process = [(kind, pid == first.pid) for kind, pid in read_calls(calls)]
    # Before the crash: the first request. After it: the approved tool, the second
    # request and the tool it asked for; no third request.
    assert by_process == [("model", True), ("ship", False), ("model", False), ("log", False)]


async def test_a_model_call_retried_by_its_client_is_one_step(tmp_path: Path) -> None:
    path = "/v1/chat/completions"
    failing = error_exchange(path, 500, "The server had an error.", "server_error", None)
    (answer,) = load_exchanges(RECORDINGS / "chat_completions_text.json")
    retry = RetryPolicy(max_attempts=2, initial_delay=0.01, max_delay=0.02)
    runtime = DurableRuntime(f"sqlite:///{tmp_path / 'runs.sqlite'}", takeover_after=None)
    async with FaultyServer([failing, answer]) as server:
        model = OpenAIChatCompletionClient(
            "gpt-4.1-mini", base_url=f"{server.url}/v1", api_key="sk-test", retry=retry
        )
        runtime.register_agent(Agent(model, name="greeter"))
        async with model.client, runtime:  # the SDK client's connection is closed at the end
            run = await runtime.start_agent("greeter", "Say hello.", run_id="hello-1")
            response = await run.result(timeout=60)
            steps = await runtime.client().list_workflow_steps_async("hello-1")
    assert len(server.requests) == 2
    assert response.text
    (step,) = steps
    assert step["function_name"] == "agentry.model"
    assert step["error"] is None
