"""Sequential orchestration: a writer drafts, an editor tightens, a translator translates.

Each agent sees the request and everything said before it. The updates stream as they
come, labelled with the agent that is speaking. Runs offline on the scripted model.

    python examples/orchestrations/sequential.py
"""

from __future__ import annotations

import asyncio

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.orchestrations import AGENT_TURN_EVENT, SequentialOrchestrator


def agent(name: str, instructions: str, answer: str) -> Agent:
    client = ScriptedChatClient([answer], chunk_size=12)
    return Agent(client=client, name=name, instructions=instructions)


async def main() -> None:
    writer = agent("writer", "Write a one-line slogan.", "Fresh bread, every single morning.")
    editor = agent("editor", "Make the slogan shorter.", "Fresh bread every morning.")
    translator = agent("translator", "Translate to French.", "Du pain frais chaque matin.")
    workflow = SequentialOrchestrator(participants=[writer, editor, translator]).build()

    async for event in workflow.run("A slogan for a bakery, please.", stream=True):
        if event.type == AGENT_TURN_EVENT:
            print(f"\n{event.data}: ", end="")
        elif event.type == "intermediate":
            print(event.data.text, end="", flush=True)
        elif event.type == "output":
            print(f"\n\nfinal: {event.data[-1].text}")


if __name__ == "__main__":
    asyncio.run(main())
