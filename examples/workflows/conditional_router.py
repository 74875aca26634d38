"""A conditional router: an agent triages support tickets, a switch-case routes them.

The triage agent (a scripted model here, so the example runs offline) names a category.
A switch-case edge group sends the ticket to the first matching team, or to a person by
default. Only the teams' answers are Workflow Output; the triage agent's replies are
shown as Intermediate Output.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from typing_extensions import Never

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.workflows import (
    AgentExecutorResponse,
    Case,
    Default,
    FunctionExecutor,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)

TICKETS = [
    "I was charged twice this month.",
    "The app crashes when I upload a photo.",
    "Can I bring my dog to the office?",
]


@dataclass
class Ticket:
    text: str
    category: str


def build() -> Workflow:
    triage = Agent(
        client=ScriptedChatClient(["billing", "technical", "other"]),
        name="triage",
        instructions="Answer with one word: billing, technical or other.",
    )

    @executor(id="classify")
    async def classify(answer: AgentExecutorResponse, ctx: WorkflowContext[Ticket]) -> None:
        question = answer.full_conversation[-2].text
        await ctx.send_message(Ticket(question, answer.agent_response.text.strip().lower()))

    def team(name: str, reply: str) -> FunctionExecutor:
        async def answer(ticket: Ticket, ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output(f"[{name}] {reply}: {ticket.text!r}")

        return executor(answer, id=name)

    billing = team("billing", "refund on its way")
    technical = team("technical", "bug filed")
    people = team("people", "a colleague will reply")

    return (
        WorkflowBuilder(
            name="support",
            start_executor=triage,
            output_from=[billing, technical, people],
            intermediate_output_from=[triage],
        )
        .add_edge(triage, classify)
        .add_switch_case_edge_group(
            classify,
            [
                Case(condition=lambda t: t.category == "billing", target=billing),
                Case(condition=lambda t: t.category == "technical", target=technical),
                Default(target=people),
            ],
        )
        .build()
    )


async def main() -> list[str]:
    workflow = build()
    answers: list[str] = []
    for ticket in TICKETS:
        result = await workflow.run(ticket)
        triaged = result.get_intermediate_outputs()[0].text
        (answer,) = result.get_outputs()
        print(f"triage: {triaged:<10} -> {answer}")
        answers.append(answer)
    return answers


if __name__ == "__main__":
    asyncio.run(main())
