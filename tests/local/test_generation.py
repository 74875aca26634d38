"""How the real default model generates: constrained picks, sampling, the prompt cache.

Constrained decoding checks the model's own pick against the grammar first and filters the
whole vocabulary only when the pick is refused; these tests force both paths. The usage of
each response says how many prompt tokens came from llama.cpp's cache.
"""

from __future__ import annotations

import json
from typing import cast

import pytest

from agentry import ChatOptions, Message, UsageDetails, tool
from agentry.local import LocalChatClient


@tool
def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"Light rain, 14 C in {city}"


# Codes no model would write unprompted: every first pick of the value is refused.
_ODD_CODES = ["qz-7-vex", "wq-3-lum"]
_CODE_SCHEMA = {
    "type": "object",
    "properties": {"code": {"enum": _ODD_CODES}, "count": {"type": "integer"}},
    "required": ["code", "count"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def client() -> LocalChatClient:
    return LocalChatClient(max_tokens=48)


def _cached(usage: UsageDetails | None) -> int:
    assert usage is not None
    value = cast("dict[str, int]", usage).get("cached_input_token_count")
    assert isinstance(value, int)
    return value


async def test_output_the_model_would_not_pick_is_still_forced_by_the_schema(
    client: LocalChatClient,
) -> None:
    options: ChatOptions = {"response_format": _CODE_SCHEMA}
    response = await client.get_response("What is the capital of France?", options=options)
    value = json.loads(response.text)
    assert value["code"] in _ODD_CODES
    assert isinstance(value["count"], int)


async def test_sampled_constrained_output_repeats_with_a_seed_and_matches_the_schema(
    client: LocalChatClient,
) -> None:
    options: ChatOptions = {"response_format": _CODE_SCHEMA, "temperature": 1.5, "seed": 7}
    prompt = "Pick a code and a count."
    first = await client.get_response(prompt, options=options)
    second = await client.get_response(prompt, options=options)
    assert first.text == second.text
    assert json.loads(first.text)["code"] in _ODD_CODES


async def test_a_request_after_another_takes_their_shared_prefix_from_the_cache(
    client: LocalChatClient,
) -> None:
    options: ChatOptions = {"tools": [get_weather], "temperature": 0.0}
    system = Message("system", ["You are a helpful assistant."])
    first = await client.get_response(
        [system, Message("user", ["What's the weather in Paris?"])], options=options
    )
    second = await client.get_response(
        [system, Message("user", ["What's the weather in Oslo?"])], options=options
    )
    assert first.usage_details is not None
    assert second.usage_details is not None
    prompt = second.usage_details.get("input_token_count", 0)
    # The system prompt with the tool list is most of the prompt, and it is not evaluated again.
    assert prompt * 0.8 < _cached(second.usage_details) < prompt


async def test_a_seeded_request_evaluates_its_whole_prompt(client: LocalChatClient) -> None:
    await client.get_response("Say hi.", options={"max_tokens": 4})
    response = await client.get_response("Say hi.", options={"max_tokens": 4, "seed": 3})
    assert _cached(response.usage_details) == 0


async def test_the_fixed_parts_of_a_move_are_given_to_the_model_not_generated(
    client: LocalChatClient,
) -> None:
    options: ChatOptions = {"tools": [get_weather], "temperature": 0.0}
    response = await client.get_response("What's the weather in Paris?", options=options)
    calls = [c for c in response.messages[0].contents if c.type == "function_call"]
    assert [(c.name, c.parse_arguments()) for c in calls] == [("get_weather", {"city": "Paris"})]
    assert response.usage_details is not None
    # The move is 16 tokens; its opening and its "arguments" key are given, and it ends at
    # its closing brace rather than at an end-of-turn token.
    assert response.usage_details.get("output_token_count", 0) <= 10
