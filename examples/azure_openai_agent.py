"""An agent with a tool on an Azure OpenAI resource, through its Responses API.

Set AZURE_OPENAI_ENDPOINT (https://NAME.openai.azure.com) and AZURE_OPENAI_CHAT_MODEL (the
deployment name), then sign in: AZURE_OPENAI_API_KEY, or `az login` (without a key the
client signs in with DefaultAzureCredential). Needs `pip install 'agentry[azure]'`.
"""

from __future__ import annotations

import asyncio

from agentry import Agent, tool
from agentry.azure import AzureOpenAIChatClient


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return {"Paris": "sunny, 21°C", "Tokyo": "rainy, 16°C"}.get(city, "unknown")


async def main() -> None:
    agent = Agent(client=AzureOpenAIChatClient(), tools=[get_weather])
    response = await agent.run("What is the weather in Paris and in Tokyo?")
    for message in response.messages:
        for content in message.contents:
            if content.type == "function_call":
                print(f"[called {content.name}({content.arguments})]")
    print(response.text)


if __name__ == "__main__":
    asyncio.run(main())
