"""DBOS and every store on one PostgreSQL database, each in its own tables."""

from __future__ import annotations

import pytest
from typing_extensions import Never

from agentry import Message, SQLHistoryProvider
from agentry.durable import DurableRuntime
from agentry.storage import PoolSettings
from agentry.workflows import (
    SQLCheckpointStorage,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)
from tests.storage.versions import schema_versions

pytestmark = pytest.mark.timeout(90)


@executor(id="greet")
async def greet(name: str, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(f"hello {name}")


def build_greeting() -> Workflow:
    return WorkflowBuilder(name="shared-greeting", start_executor=greet).build()


async def test_dbos_and_the_stores_share_one_postgresql_url(postgres_url: str) -> None:
    pool = PoolSettings(size=3, max_overflow=1, timeout=20)
    runtime = DurableRuntime(postgres_url, pool=pool, takeover_after=None)
    runtime.register(build_greeting)
    history = SQLHistoryProvider(postgres_url, pool=pool)
    checkpoints = SQLCheckpointStorage(postgres_url, pool=pool)
    try:
        async with runtime:
            run = await runtime.start("shared-greeting", "ada")
            assert (await run.result()).get_outputs() == ["hello ada"]
        await history.save_messages("s", [Message("user", ["hi"])])
        result = await build_greeting().run("bob", checkpoint_storage=checkpoints)
        assert result.get_outputs() == ["hello bob"]
        assert await checkpoints.list_checkpoint_ids(workflow_name="shared-greeting")
    finally:
        await history.close()
        await checkpoints.close()
    assert await schema_versions(postgres_url) == {
        "agentry_messages": 1,
        "agentry_workflow_checkpoints": 1,
    }
