"""An agent on the Anthropic client with extended thinking, run offline against a recording.

The replay server answers on 127.0.0.1 with a recorded Messages API exchange (thinking, a
tool call, then the answer), so this runs through the real `anthropic` SDK with no API
key. The model's signed thinking goes back to the API unchanged with the tool result, as
the API requires. Drop `base_url` and set ANTHROPIC_API_KEY to run it for real.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentry import Agent, tool
from agentry.anthropic import AnthropicChatClient, AnthropicChatOptions
from agentry.testing import ReplayServer

RECORDING = Path(__file__).parent / "recordings" / "anthropic_thinking.json"


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return {"Paris": "sunny, 21°C", "Tokyo": "rainy, 16°C"}.get(city, "unknown")


async def main(base_url: str) -> None:
    client = AnthropicChatClient("claude-sonnet-5-5", base_url=base_url, api_key="sk-replay")
    thinking: AnthropicChatOptions = {"thinking": {"type": "enabled", "budget_tokens": 2048}}
    agent = Agent(client=client, tools=[get_weather], default_options=thinking)
    response = await agent.run("What is the weather in Paris?")
    for message in response.messages:
        for content in message.contents:
            if content.type == "text_reasoning" and content.text:
                print(f"[thought: {content.text}]")
            elif content.type == "function_call":
                print(f"[called {content.name}({content.parse_arguments()})]")
    print(response.messages[-1].text)
    usage = response.usage_details or {}
    print(f"thinking tokens: {usage.get('reasoning_token_count')}")


if __name__ == "__main__":
    with ReplayServer(RECORDING) as server:
        asyncio.run(main(server.url))
