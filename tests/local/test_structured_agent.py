"""An agent on the embedded local model answers in a response format, and the answer
validates, streamed or not."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from agentry import Agent
from agentry.local import LocalChatClient


class CityFacts(BaseModel):
    name: str
    country: str


@pytest.fixture(scope="module")
def agent() -> Agent:
    return Agent(client=LocalChatClient(max_tokens=48), instructions="Answer in JSON.")


@pytest.mark.parametrize("stream", [False, True])
async def test_a_structured_answer_of_the_local_model_validates(agent: Agent, stream: bool) -> None:
    if stream:
        response = await agent.run(
            "Give facts about Tokyo.", stream=True, response_format=CityFacts
        )
    else:
        response = await agent.run("Give facts about Tokyo.", response_format=CityFacts)

    facts: CityFacts = response.value
    assert isinstance(facts, CityFacts)
    assert facts.name
    assert facts.country
