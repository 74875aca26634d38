"""An agent with a tool on an Azure AI Foundry project, signed in with the Azure CLI.

Run `az login`, set FOUNDRY_PROJECT_ENDPOINT
(https://ACCOUNT.services.ai.azure.com/api/projects/PROJECT, from the project's overview
page) and FOUNDRY_MODEL (a model deployment). Needs `pip install 'agentry[azure]'`.
"""

from __future__ import annotations

import asyncio

from azure.identity import AzureCliCredential

from agentry import Agent, tool
from agentry.foundry import FoundryChatClient


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return {"Paris": "sunny, 21°C", "Tokyo": "rainy, 16°C"}.get(city, "unknown")


async def main() -> None:
    client = FoundryChatClient(credential=AzureCliCredential())
    agent = Agent(client=client, instructions="Answer briefly.", tools=[get_weather])
    response = await agent.run("What is the weather in Paris and in Tokyo?")
    print(response.text)


if __name__ == "__main__":
    asyncio.run(main())
