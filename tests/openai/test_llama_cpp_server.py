"""`OpenAIChatCompletionClient` against a real OpenAI-compatible server: llama.cpp's server
(`python -m llama_cpp.server`) with the default local model, on 127.0.0.1.

The server starts once for the module. Answers are greedy (temperature 0, fixed seed) and
short; the tests check that real payloads map well, not what the model says.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

import openai
from agentry import ChatOptions
from agentry.local import DEFAULT_LOCAL_MODEL
from agentry.local._model_files import resolve_model_file
from agentry.local._registry import get_local_model
from agentry.openai import OpenAIChatCompletionClient
from agentry.testing import RecordingTransport, ReplayServer, load_exchanges

GREEDY: ChatOptions = {"temperature": 0.0, "seed": 7, "max_tokens": 16}
_STARTUP_SECONDS = 120


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_ready(server: subprocess.Popen[bytes], url: str) -> None:
    deadline = time.monotonic() + _STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"llama.cpp's server exited with code {server.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2):
                return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.2)
    raise RuntimeError(f"llama.cpp's server did not answer within {_STARTUP_SECONDS} s")


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    """The base URL of a llama.cpp server running the default local model."""
    model = resolve_model_file(get_local_model(DEFAULT_LOCAL_MODEL))
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--model_alias",
        "local",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "1024",
        "--n_threads",
        "2",
    ]
    environment = {**os.environ, "OMP_WAIT_POLICY": "passive"}
    server = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_ready(server, url)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def _client(base_url: str, api_key: str | None = None) -> OpenAIChatCompletionClient:
    return OpenAIChatCompletionClient("local", base_url=base_url, api_key=api_key, max_retries=0)


async def test_plain_and_streamed_answers_agree(llama_server: str) -> None:
    client = _client(llama_server)

    plain = await client.get_response("Name one colour.", options=GREEDY)
    stream = client.get_response("Name one colour.", stream=True, options=GREEDY)
    pieces = [update.text async for update in stream]
    streamed = await stream.get_final_response()

    assert plain.text.strip()
    assert streamed.text == plain.text == "".join(pieces)
    assert plain.finish_reason in ("stop", "length")
    assert streamed.finish_reason == plain.finish_reason
    usage = plain.usage_details or {}
    input_tokens = usage.get("input_token_count", 0)
    output_tokens = usage.get("output_token_count", 0)
    assert input_tokens > 0
    assert 0 < output_tokens <= 16
    assert usage.get("total_token_count") == input_tokens + output_tokens


async def test_a_real_exchange_records_and_replays_offline(
    llama_server: str, tmp_path: Path
) -> None:
    file = tmp_path / "llama.json"
    transport = RecordingTransport(file)
    sdk = openai.AsyncOpenAI(
        api_key="unused",
        base_url=llama_server,
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=transport),
    )
    live_client = OpenAIChatCompletionClient("local", client=sdk)
    live = await live_client.get_response("Name one fruit.", options=GREEDY)
    live_stream = await live_client.get_response(
        "Name one fruit.", stream=True, options=GREEDY
    ).get_final_response()
    transport.save()

    recorded = load_exchanges(file)
    assert [(e.path, e.sse is not None) for e in recorded] == [
        ("/v1/chat/completions", False),
        ("/v1/chat/completions", True),
    ]
    with ReplayServer(file) as replay:
        offline = _client(f"{replay.url}/v1", api_key="k")
        replayed = await offline.get_response("Name one fruit.", options=GREEDY)
        replayed_stream = await offline.get_response(
            "Name one fruit.", stream=True, options=GREEDY
        ).get_final_response()

    assert replayed.to_dict() == live.to_dict()
    assert replayed_stream.to_dict() == live_stream.to_dict()
    assert replay.bodies == [e.request_body for e in recorded]
