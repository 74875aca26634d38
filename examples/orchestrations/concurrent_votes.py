"""Concurrent orchestration: three reviewers judge the same pitch at the same time.

(Named `concurrent_votes.py`: a script named `concurrent.py` would hide the standard
library package of that name.)

The reviewers each take 0.3 s (a stand-in for model latency); they run concurrently, so
the whole run takes about 0.3 s, not 0.9 s. A custom aggregator counts the votes.

    python examples/orchestrations/concurrent_votes.py
"""

from __future__ import annotations

import asyncio
import time

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.orchestrations import AgentReply, ConcurrentOrchestrator


def reviewer(name: str, verdict: str) -> Agent:
    return Agent(client=ScriptedChatClient([verdict], delay=0.3), name=name)


def tally(replies: list[AgentReply]) -> str:
    votes = [f"{r.agent}: {r.text}" for r in replies]
    yes = sum(r.text.startswith("Yes") for r in replies)
    return "\n".join([*votes, f"{yes} of {len(replies)} say yes"])


async def main() -> None:
    reviewers = [
        reviewer("finance", "Yes, the margins work."),
        reviewer("legal", "No, the contract is unclear."),
        reviewer("product", "Yes, users asked for it."),
    ]
    workflow = ConcurrentOrchestrator(participants=reviewers, aggregator=tally).build()
    started = time.perf_counter()
    result = await workflow.run("Should we launch the premium plan?")
    elapsed = time.perf_counter() - started
    print(result.get_outputs()[0])
    print(f"three 0.3 s reviews ran {'concurrently' if elapsed < 0.6 else 'one by one'}")


if __name__ == "__main__":
    asyncio.run(main())
