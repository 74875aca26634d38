"""Handoff orchestration: triage hands a customer to billing, who asks the user a question.

Triage calls its generated `handoff_to_billing` tool. Billing needs the order number, so
the run pauses with a request for the user; the answer resumes the same conversation.
The conversation ends when the user says goodbye.

    python examples/orchestrations/handoff.py
"""

from __future__ import annotations

import asyncio

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.orchestrations import (
    HANDOFF_EVENT,
    TERMINATED_EVENT,
    HandoffOrchestrator,
    KeywordTermination,
    MaxRounds,
)


async def main() -> None:
    triage = Agent(
        client=ScriptedChatClient([ScriptedChatClient.function_call("handoff_to_billing")]),
        name="triage",
        description="Greets customers and routes them.",
    )
    billing = Agent(
        client=ScriptedChatClient(["Which order is it?", "Order 42 is refunded."]),
        name="billing",
        description="Handles refunds and invoices.",
    )
    shipping = Agent(client=ScriptedChatClient([]), name="shipping", description="Tracks parcels.")
    workflow = HandoffOrchestrator(
        participants=[triage, billing, shipping],
        handoffs={"triage": ["billing", "shipping"], "billing": ["triage"]},
        termination=KeywordTermination("bye", roles=["user"]) | MaxRounds(10),
    ).build()

    user_says = ["Order 42.", "Thanks, bye!"]
    result = await workflow.run("I want my money back.")
    while True:
        for event in result:
            if event.type == HANDOFF_EVENT:
                print(f"[{event.data[0]} hands over to {event.data[1]}]")
            elif event.type == TERMINATED_EVENT:
                print(f"[stopped: {event.data}]")
        for message in result.get_outputs()[-1]:
            print(f"{message.author_name}: {message.text}")
        requests = result.get_request_info_events()
        if not requests:
            break
        answer = user_says.pop(0)
        print(f"user: {answer}")
        result = await workflow.run(responses={requests[0].request_id or "": answer})


if __name__ == "__main__":
    asyncio.run(main())
