"""Group chat: a writer and a reviewer take turns until the reviewer approves.

Round-robin picks the speakers; the chat ends on the keyword "APPROVED" (or after six
turns, whichever comes first).

    python examples/orchestrations/group_chat.py
"""

from __future__ import annotations

import asyncio

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.orchestrations import (
    TERMINATED_EVENT,
    GroupChatOrchestrator,
    KeywordTermination,
    MaxRounds,
)


async def main() -> None:
    writer = Agent(
        client=ScriptedChatClient(["Buy our shoes.", "Walk further in our shoes."]),
        name="writer",
        description="Writes taglines.",
    )
    reviewer = Agent(
        client=ScriptedChatClient(["Too plain; say what the shoes do.", "APPROVED."]),
        name="reviewer",
        description="Reviews taglines.",
    )
    chat = GroupChatOrchestrator(
        participants=[writer, reviewer],
        termination=KeywordTermination("APPROVED") | MaxRounds(6),
    )
    result = await chat.build().run("A tagline for running shoes.")
    for message in result.get_outputs()[0]:
        print(f"{message.author_name}: {message.text}")
    for event in result:
        if event.type == TERMINATED_EVENT:
            print(f"(stopped: {event.data})")


if __name__ == "__main__":
    asyncio.run(main())
