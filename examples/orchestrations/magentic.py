"""Magentic orchestration: a manager plans, delegates, re-plans when stuck, and answers.

The manager's plan goes to a person for review first (here the script approves it). The
first attempt stalls, so the manager re-plans; then the task is done and it answers.

    python examples/orchestrations/magentic.py
"""

from __future__ import annotations

import asyncio
import json

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.orchestrations import (
    MAGENTIC_PLAN_EVENT,
    MAGENTIC_PROGRESS_EVENT,
    MagenticOrchestrator,
    MagenticPlanReview,
    MagenticPlanReviewRequest,
)


def progress(speaker: str, instruction: str, *, stuck: bool = False) -> str:
    return json.dumps(
        {
            "is_request_satisfied": False,
            "is_progress_being_made": not stuck,
            "next_speaker": speaker,
            "instruction": instruction,
        }
    )


MANAGER_SCRIPT = [
    json.dumps({"facts": ["The café opens at 8."], "plan": ["searcher finds the menu"]}),
    progress("searcher", "Find the café's menu online."),
    progress("searcher", "Try again.", stuck=True),
    json.dumps({"facts": ["The website is down."], "plan": ["analyst estimates from reviews"]}),
    progress("analyst", "Estimate a coffee's price from the reviews."),
    json.dumps({"is_request_satisfied": True}),
    "A coffee there costs about 3 euros (estimated from reviews; the website was down).",
]


async def main() -> None:
    manager = Agent(client=ScriptedChatClient(MANAGER_SCRIPT), name="manager")
    searcher = Agent(
        client=ScriptedChatClient(["The website does not answer."]),
        name="searcher",
        description="Searches the web.",
    )
    analyst = Agent(
        client=ScriptedChatClient(["Reviews mention 3 euros for a coffee."]),
        name="analyst",
        description="Reads reviews and estimates.",
    )
    workflow = MagenticOrchestrator(
        participants=[searcher, analyst],
        manager=manager,
        max_stall_count=0,
        enable_plan_review=True,
    ).build()

    result = await workflow.run("How much is a coffee at the corner café?")
    (request,) = result.get_request_info_events()
    assert isinstance(request.data, MagenticPlanReviewRequest)
    print(f"plan for review: {request.data.plan}")
    result = await workflow.run(
        responses={request.request_id or "": MagenticPlanReview(approved=True)}
    )
    for event in result:
        if event.type == MAGENTIC_PLAN_EVENT:
            print(f"re-plan: {event.data.plan}")
        elif event.type == MAGENTIC_PROGRESS_EVENT:
            ledger = event.data
            if ledger.is_request_satisfied:
                print("(task done)")
            elif ledger.is_progress_being_made:
                print(f"-> {ledger.next_speaker}: {ledger.instruction}")
            else:
                print("(no progress)")
    print(f"answer: {result.get_outputs()[0][0].text}")


if __name__ == "__main__":
    asyncio.run(main())
