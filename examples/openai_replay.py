"""An agent on the OpenAI Responses client, run offline against recorded exchanges.

The replay server answers on 127.0.0.1 with a recorded OpenAI exchange (two parallel
tool calls, then the answer), so this runs through the real OpenAI SDK with no API key.
With `store` on, the service keeps the conversation and the session remembers its id.
Point `base_url` at OpenAI (or drop it and set OPENAI_API_KEY) to run it for real.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentry import Agent, tool
from agentry.openai import OpenAIChatClient
from agentry.testing import ReplayServer

RECORDING = Path(__file__).parent / "recordings" / "openai_weather.json"


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return {"Paris": "sunny, 21°C", "Tokyo": "rainy, 16°C"}.get(city, "unknown")


async def main(base_url: str) -> None:
    client = OpenAIChatClient("gpt-4.1-mini", base_url=base_url, api_key="sk-replay")
    agent = Agent(client=client, tools=[get_weather], default_options={"store": True})
    session = agent.create_session()
    response = await agent.run("What is the weather in Paris and in Tokyo?", session=session)
    for message in response.messages:
        for content in message.contents:
            if content.type == "function_call":
                print(f"[called {content.name}({content.arguments})]")
    print(response.text)
    print(f"service conversation: {session.service_session_id}")


if __name__ == "__main__":
    with ReplayServer(RECORDING) as server:
        asyncio.run(main(f"{server.url}/v1"))
