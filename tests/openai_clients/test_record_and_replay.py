"""The recorder writes real exchanges to files; the replay server serves them back."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from agentry import Agent, tool
from agentry.errors import SerializationError
from agentry.openai import OpenAIChatClient, OpenAIChatCompletionClient
from agentry.testing import ReplayServer, load_exchanges
from agentry.testing.recording import RecordingTransport
from tests.openai_clients.conftest import ServerFactory


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return {"Paris": "sunny, 21°C", "Tokyo": "rainy, 16°C"}[city]


QUESTION = "What is the weather in Paris and in Tokyo?"


@pytest.mark.parametrize(
    ("client_class", "recording"),
    [
        (OpenAIChatCompletionClient, "chat_completions_parallel_tools_stream.json"),
        (OpenAIChatClient, "responses_parallel_tools_stream.json"),
        (OpenAIChatClient, "responses_text.json"),
    ],
)
async def test_a_recording_replays_to_the_same_run(
    replay: ServerFactory,
    tmp_path: Path,
    client_class: type[OpenAIChatClient | OpenAIChatCompletionClient],
    recording: str,
) -> None:
    live = replay(recording)  # stands in for the real service
    recorder = RecordingTransport()
    client = client_class(
        "gpt-4.1-mini",
        base_url=live.base_url,
        api_key="sk-secret-key",
        max_retries=0,
        http_client=recorder.http_client(),
    )
    agent = Agent(client=client, tools=[get_weather])
    first = await agent.run(QUESTION, stream=True).get_final_response()
    file = tmp_path / "recorded.json"
    recorder.save(file)

    recorded = load_exchanges(file)
    assert [e["response"] for e in recorded] == [e["response"] for e in live.exchanges]
    assert [e["request"]["body"] for e in recorded] == [r["body"] for r in live.requests]
    assert "sk-secret-key" not in file.read_text(encoding="utf-8")

    replayed = replay(str(file))
    again = Agent(
        client=client_class("gpt-4.1-mini", base_url=replayed.base_url, api_key="k", max_retries=0),
        tools=[get_weather],
    )
    second = await again.run(QUESTION, stream=True).get_final_response()
    assert second.text == first.text
    assert replayed.remaining == 0


def _post(url: str) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=b"{}", method="POST")
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_request_the_recording_does_not_expect_is_reported() -> None:
    exchanges: list[dict[str, Any]] = [
        {
            "request": {"method": "POST", "path": "/v1/responses"},
            "response": {"status": 200, "body": {}},
        }
    ]
    with ReplayServer(exchanges) as server:
        wrong = _post(server.base_url + "/chat/completions")
        extra = _post(server.base_url + "/responses")

    assert wrong[0] == 599
    assert "expects POST /v1/responses" in wrong[1]["error"]["message"]
    assert extra[0] == 599
    assert server.failures == [
        "request 0 was POST /v1/chat/completions, but the recording expects POST /v1/responses",
        "request 1 (POST /v1/responses) came after all exchanges were served",
    ]


def test_a_file_that_is_not_a_recording_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "bad.json"
    file.write_text(json.dumps({"exchanges": [{"request": {}}]}), encoding="utf-8")

    with pytest.raises(SerializationError, match="needs a 'request' and a 'response'"):
        load_exchanges(file)
    file.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(SerializationError, match="is not a recording"):
        load_exchanges(file)
