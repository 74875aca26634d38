"""The app the CLI tests point `agentry worker` and `agentry workflow` at.

`create_runtime` makes the app's runtime when the command runs, on the database that
`$AGENTRY_DURABLE_DATABASE_URL` names then.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing_extensions import Never

from agentry.durable import DurableRuntime
from agentry.workflows import (
    Executor,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    handler,
    response_handler,
)


@dataclass
class Review:
    approved: bool
    note: str = ""


class Reviewer(Executor):
    @handler
    async def ask(self, draft: str, ctx: WorkflowContext) -> None:
        await ctx.request_info(draft, Review, request_id="review")

    @response_handler
    async def decide(self, draft: str, review: Review, ctx: WorkflowContext[Never, str]) -> None:
        verdict = "published" if review.approved else "dropped"
        await ctx.yield_output(f"{verdict}: {draft} ({review.note})")


def build_review() -> Workflow:
    return WorkflowBuilder(name="review", start_executor=Reviewer(id="reviewer")).build()


def create_runtime() -> DurableRuntime:
    runtime = DurableRuntime()
    runtime.register(build_review)
    return runtime
