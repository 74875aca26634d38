"""Stream an answer from an OpenAI-compatible server known by name.

    python examples/openai_compatible_server.py ollama qwen2.5
    python examples/openai_compatible_server.py openrouter openai/gpt-4o-mini

Names: ollama, vllm, lmstudio, llamacpp, openrouter, gemini. Each has a default address
(OLLAMA_BASE_URL and friends move it) and, for hosted services, a key variable
(OPENROUTER_API_KEY, GEMINI_API_KEY). Needs `pip install 'agentry[openai]'`.
"""

from __future__ import annotations

import asyncio
import sys

from agentry import Agent
from agentry.openai import OpenAIChatCompletionClient


async def main(provider: str, model: str) -> None:
    client = OpenAIChatCompletionClient.for_provider(provider, model=model)
    agent = Agent(client=client, instructions="Answer in one short sentence.")
    stream = agent.run("Why is the sky blue?", stream=True, options={"max_tokens": 48})
    async for update in stream:
        print(update.text, end="", flush=True)
    print()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
