"""The clients under the conformance suite: one `ProviderCase` each, in `PROVIDERS`.

To put a client under the suite, add a case: how to build it for a server URL and key,
the path its requests go to, its provider's error bodies, and recordings in its wire
format (a plain text answer, and two parallel tool calls followed by the final answer,
plain and streamed). A client whose service has URL shapes or headers of its own (Azure)
gives a `front` that puts them in front of llama-server.
The live scenarios run against llama.cpp's `llama-server`; what one local server cannot
show (parallel calls, unknown models, rate limits) is replayed from the recordings.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentry.anthropic import AnthropicChatClient
from agentry.clients import BaseChatClient
from agentry.openai import OpenAIChatClient, OpenAIChatCompletionClient
from agentry.types import RetryPolicy

TESTS = Path(__file__).resolve().parents[1]
OPENAI_RECORDINGS = TESTS / "openai" / "recordings"
ANTHROPIC_RECORDINGS = TESTS / "anthropic" / "recordings"

MakeClient = Callable[[str, str, RetryPolicy | None], BaseChatClient]
"""(server URL without `/v1`, API key, retry policy) -> a client for the model "local"."""
Front = Callable[[str], AbstractContextManager[str]]
"""Given llama-server's URL, a context that yields the URL the client talks to instead:
a local front that checks the provider's URL shapes and headers and passes requests on."""


@dataclass(frozen=True)
class ProviderCase:
    """How the conformance suite builds and replays one client."""

    id: str
    make: MakeClient
    path: str
    """The path its requests go to, such as "/v1/messages"."""
    unknown_model_error: Any
    """The provider's JSON error body for a model it does not have (HTTP 404)."""
    rate_limit_error: Any
    """The provider's JSON error body for a rate limit (HTTP 429)."""
    key_variable: str
    """The environment variable its "bad key" message names."""
    text_recording: Path
    parallel_tools_recording: Path
    """Two `get_weather` calls (Paris, Tokyo), then the answer "It is sunny and 21°C in
    Paris, and rainy and 16°C in Tokyo."."""
    parallel_tools_stream_recording: Path
    """The same exchanges, streamed."""
    structured_recording: Path | None = None
    """Set when the local server cannot show this client's structured output: a `CityFacts`
    answer about Paris (city "Paris", country "France"), replayed instead."""
    front: Front | None = None
    """Set when the client cannot talk to llama-server as it is (see `Front`)."""

    def __str__(self) -> str:
        return self.id


# As OpenAI's and Anthropic's API references document their error bodies.
_OPENAI_UNKNOWN_MODEL = {
    "error": {
        "message": "The model `nope` does not exist or you do not have access to it.",
        "type": "invalid_request_error",
        "param": None,
        "code": "model_not_found",
    }
}
_OPENAI_RATE_LIMIT = {
    "error": {
        "message": "Rate limit reached for gpt-4.1-mini on requests per min (RPM): Limit 3, "
        "Used 3, Requested 1.",
        "type": "requests",
        "param": None,
        "code": "rate_limit_exceeded",
    }
}
_ANTHROPIC_UNKNOWN_MODEL = {
    "type": "error",
    "error": {"type": "not_found_error", "message": "model: nope"},
}
_ANTHROPIC_RATE_LIMIT = {
    "type": "error",
    "error": {
        "type": "rate_limit_error",
        "message": "This request would exceed the rate limit for your organization of 50 "
        "requests per minute.",
    },
}


PROVIDERS = [
    ProviderCase(
        id="openai-responses",
        make=lambda url, key, retry: OpenAIChatClient(
            "local", base_url=f"{url}/v1", api_key=key, retry=retry, max_retries=0
        ),
        path="/v1/responses",
        unknown_model_error=_OPENAI_UNKNOWN_MODEL,
        rate_limit_error=_OPENAI_RATE_LIMIT,
        key_variable="OPENAI_API_KEY",
        text_recording=OPENAI_RECORDINGS / "responses_text.json",
        parallel_tools_recording=OPENAI_RECORDINGS / "responses_parallel_tools.json",
        parallel_tools_stream_recording=OPENAI_RECORDINGS / "responses_parallel_tools_stream.json",
        # llama-server's Responses API does not apply `text.format`.
        structured_recording=OPENAI_RECORDINGS / "responses_structured.json",
    ),
    ProviderCase(
        id="openai-chat-completions",
        make=lambda url, key, retry: OpenAIChatCompletionClient(
            "local", base_url=f"{url}/v1", api_key=key, retry=retry, max_retries=0
        ),
        path="/v1/chat/completions",
        unknown_model_error=_OPENAI_UNKNOWN_MODEL,
        rate_limit_error=_OPENAI_RATE_LIMIT,
        key_variable="OPENAI_API_KEY",
        text_recording=OPENAI_RECORDINGS / "chat_completions_text.json",
        parallel_tools_recording=OPENAI_RECORDINGS / "chat_completions_parallel_tools.json",
        parallel_tools_stream_recording=OPENAI_RECORDINGS
        / "chat_completions_parallel_tools_stream.json",
    ),
    ProviderCase(
        id="anthropic",
        make=lambda url, key, retry: AnthropicChatClient(
            "local", base_url=url, api_key=key, retry=retry, max_retries=0
        ),
        path="/v1/messages",
        unknown_model_error=_ANTHROPIC_UNKNOWN_MODEL,
        rate_limit_error=_ANTHROPIC_RATE_LIMIT,
        key_variable="ANTHROPIC_API_KEY",
        text_recording=ANTHROPIC_RECORDINGS / "messages_text.json",
        parallel_tools_recording=ANTHROPIC_RECORDINGS / "messages_parallel_tools.json",
        parallel_tools_stream_recording=ANTHROPIC_RECORDINGS
        / "messages_parallel_tools_stream.json",
    ),
]
