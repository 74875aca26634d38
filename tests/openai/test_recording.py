from pathlib import Path

import httpx2 as httpx
import pytest

import openai
from agentry.openai import OpenAIChatCompletionClient
from agentry.testing import RecordingTransport, ReplayServer, load_exchanges

RECORDINGS = Path(__file__).parent / "recordings"


@pytest.mark.parametrize("name", ["chat_text", "chat_parallel_tools_stream"])
async def test_a_recorded_exchange_replays_the_same(tmp_path: Path, name: str) -> None:
    original = load_exchanges(RECORDINGS / f"{name}.json")
    saved = tmp_path / "recorded.json"
    stream = name.endswith("stream")
    with ReplayServer(original) as server:
        transport = RecordingTransport(saved)
        sdk = openai.AsyncOpenAI(
            api_key="sk-test",
            base_url=f"{server.url}/v1",
            http_client=httpx.AsyncClient(transport=transport),
        )
        client = OpenAIChatCompletionClient(model="m", client=sdk)
        live = (
            await client.get_response("hi", stream=True)
            if stream
            else await client.get_response("hi")
        )
        transport.save()
    recorded = load_exchanges(saved)
    assert [(e.status, e.body, e.sse) for e in recorded] == [
        (e.status, e.body, e.sse) for e in original[:1]
    ]
    assert recorded[0].request_body["messages"] == [{"role": "user", "content": "hi"}]
    with ReplayServer(saved) as server:
        replayed_client = OpenAIChatCompletionClient(
            model="m", api_key="k", base_url=f"{server.url}/v1"
        )
        replayed = (
            await replayed_client.get_response("hi", stream=True)
            if stream
            else await replayed_client.get_response("hi")
        )
    assert replayed.to_dict() == live.to_dict()
