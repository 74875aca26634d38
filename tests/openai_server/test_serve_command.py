"""`agentry serve openai` as a process, used by agentry's own OpenAI client."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

import openai
from agentry import Agent
from agentry.openai import OpenAIChatCompletionClient
from tests.a2a.processes import ROOT, answering, free_port

APP = '''
from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient

@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b

def _answer(messages, options):
    results = [c.result for m in messages for c in m.contents if c.type == "function_result"]
    if results:
        return f"The sum is {results[-1]}."
    return ScriptedChatClient.function_call("add", {"a": 2, "b": 3})

agent = Agent(client=ScriptedChatClient([_answer] * 10), name="calculator", tools=[add])
'''


def command(tmp_path: Path, *options: str) -> list[str]:
    (tmp_path / "calc_app.py").write_text(APP)
    app = f"{tmp_path / 'calc_app.py'}:agent"
    return [sys.executable, "-m", "agentry.cli", "serve", "openai", app, *options]


def environment(**variables: str) -> dict[str, str]:
    return {**os.environ, **variables, "PYTHONPATH": str(ROOT / "src")}


@asynccontextmanager
async def served(tmp_path: Path, *options: str, key: str) -> AsyncGenerator[str, None]:
    port = free_port()
    process = subprocess.Popen(
        command(tmp_path, *options, "--port", str(port)),
        env=environment(CALC_KEY=key),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        await answering(process, f"{url}/models")
        yield url
    finally:
        process.terminate()
        process.wait(15)
        if process.stderr:
            process.stderr.close()


def client_of(url: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=url, api_key="unused", max_retries=0)


async def test_an_agent_uses_a_served_agent_as_its_model(tmp_path: Path) -> None:
    async with served(tmp_path, "--model", "calc", "--api-key-env", "CALC_KEY", key="k-1") as url:
        async with OpenAIChatCompletionClient("calc", base_url=url, api_key="k-1") as model:
            front = Agent(client=model)
            answer = await front.run("What is 2 + 3?")
            streamed = await front.run("What is 2 + 3?", stream=True).get_final_response()
        async with openai.AsyncOpenAI(base_url=url, api_key="k-2", max_retries=0) as stranger:
            with pytest.raises(openai.AuthenticationError):
                await stranger.models.list()

    assert answer.text == streamed.text == "The sum is 5."


def test_a_key_variable_that_is_not_set_stops_the_command(tmp_path: Path) -> None:
    done = subprocess.run(
        command(tmp_path, "--api-key-env", "NO_SUCH_KEY_VARIABLE"),
        env=environment(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 2
    assert "--api-key-env NO_SUCH_KEY_VARIABLE: the environment variable is not set" in done.stderr


def test_serving_beyond_this_machine_without_a_key_warns(tmp_path: Path) -> None:
    process = subprocess.Popen(
        command(tmp_path, "--host", "0.0.0.0", "--port", str(free_port())),
        env=environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        first_lines = process.stderr.readline() + process.stderr.readline()
    finally:
        process.terminate()
        process.wait(15)
        if process.stderr:
            process.stderr.close()

    assert "stored responses are kept in memory" in first_lines
    assert "serving on 0.0.0.0 without an API key: anyone who reaches this port" in first_lines


async def test_stored_responses_outlive_the_server_in_its_database(tmp_path: Path) -> None:
    database = tmp_path / "responses.sqlite"
    options = ("--database", str(database))
    async with served(tmp_path, *options, key="") as url, client_of(url) as o:
        first = await o.responses.create(model="calculator", input="What is 2 + 3?")
    async with served(tmp_path, *options, key="") as url, client_of(url) as o:
        again = await o.responses.create(
            model="calculator", input="Say it again.", previous_response_id=first.id
        )

    assert first.output_text == again.output_text == "The sum is 5."
    assert again.previous_response_id == first.id
