"""`AzureOpenAIChatCompletionClient` on a real model: llama.cpp's server with the default
local model, behind the local Azure front (tests/azure/front.py), which checks Azure's URL
and header shapes and says where they are documented."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentry import ChatOptions
from agentry.azure import AzureOpenAIChatCompletionClient
from tests.azure.entra import FakeCredential
from tests.azure.front import API_KEY, AZURE_OPENAI_RESOURCE, AzureFront, entra_token

GREEDY: ChatOptions = {"temperature": 0.0, "seed": 7, "max_tokens": 16}


@pytest.fixture
def front(llama_server: str) -> Iterator[AzureFront]:
    with AzureFront(chat_upstream=llama_server) as started:
        yield started


async def test_classic_deployment_urls_with_a_key_answer_plainly_and_streamed(
    front: AzureFront,
) -> None:
    client = AzureOpenAIChatCompletionClient(
        "local-deployment",
        endpoint=front.url,
        api_key=API_KEY,
        api_version="2024-10-21",
        max_tokens_parameter="max_tokens",  # llama.cpp's server reads only max_tokens
        max_retries=0,
    )

    plain = await client.get_response("Name one colour.", options=GREEDY)
    stream = client.get_response("Name one colour.", stream=True, options=GREEDY)
    pieces = [update.text async for update in stream]
    streamed = await stream.get_final_response()

    assert plain.text.strip()
    assert streamed.text == plain.text == "".join(pieces)
    assert streamed.finish_reason == plain.finish_reason
    usage = plain.usage_details or {}
    assert 0 < usage.get("output_token_count", 0) <= 16
    assert [(s.path, s.query) for s in front.seen] == [
        ("/openai/deployments/local-deployment/chat/completions", {"api-version": "2024-10-21"})
    ] * 2
    assert {s.headers["api-key"] for s in front.seen} == {API_KEY}
    assert all("authorization" not in s.headers for s in front.seen)
    assert front.seen[0].body["max_tokens"] == 16


async def test_the_v1_api_with_an_entra_id_token_answers(front: AzureFront) -> None:
    client = AzureOpenAIChatCompletionClient(
        "local-deployment",
        endpoint=front.url,
        credential=FakeCredential(),
        max_tokens_parameter="max_tokens",
        max_retries=0,
    )

    response = await client.get_response("Name one fruit.", options=GREEDY)

    assert response.text.strip()
    assert response.finish_reason in ("stop", "length")
    (seen,) = front.seen
    assert (seen.path, seen.query) == ("/openai/v1/chat/completions", {})
    assert seen.headers["authorization"] == f"Bearer {entra_token(AZURE_OPENAI_RESOURCE)}"
    assert seen.body["model"] == "local-deployment"
