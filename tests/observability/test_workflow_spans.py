import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import StatusCode

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.workflows import (
    ExecutorFailedException,
    WorkflowBuilder,
    WorkflowContext,
    executor,
)
from tests.observability.conftest import Telemetry


def _span_id(span: ReadableSpan) -> int:
    assert span.context is not None
    return span.context.span_id


def _parent_id(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent else None


def _writer_workflow() -> tuple[WorkflowBuilder, Agent]:
    writer = Agent(client=ScriptedChatClient(["A short poem."]), name="writer")

    @executor
    async def draft(topic: str, ctx: WorkflowContext[str]) -> None:
        response = await writer.run(f"Write about {topic}")
        await ctx.send_message(response.text)

    @executor
    async def publish(text: str, ctx: WorkflowContext[None, str]) -> None:
        await ctx.yield_output(text.upper())

    return WorkflowBuilder(start_executor=draft, name="publishing").add_edge(draft, publish), writer


@pytest.mark.parametrize("stream", [False, True])
async def test_workflow_superstep_and_executor_spans_nest(
    telemetry: Telemetry, stream: bool
) -> None:
    builder, _ = _writer_workflow()
    workflow = builder.build()
    if stream:
        async for _ in workflow.run("the sea", stream=True):
            pass
    else:
        assert (await workflow.run("the sea")).get_outputs() == ["A SHORT POEM."]

    run = telemetry.one("invoke_workflow publishing")
    assert run.parent is None
    assert run.attributes is not None
    assert run.attributes["gen_ai.operation.name"] == "invoke_workflow"
    assert run.attributes["gen_ai.workflow.name"] == "publishing"
    assert run.attributes["agentry.workflow.supersteps"] == 2
    assert run.attributes["agentry.workflow.state"] == "idle"
    steps = telemetry.named("workflow.superstep")
    assert [(s.attributes or {})["agentry.workflow.superstep"] for s in steps] == [1, 2]
    assert all(_parent_id(s) == _span_id(run) for s in steps)
    draft = telemetry.one("executor.process draft")
    publish = telemetry.one("executor.process publish")
    assert _parent_id(draft) == _span_id(steps[0])
    assert _parent_id(publish) == _span_id(steps[1])
    assert (draft.attributes or {})["agentry.executor.messages"] == 1
    # an agent called by an executor is a child of the executor's span
    agent_run = telemetry.one("invoke_agent writer")
    assert _parent_id(agent_run) == _span_id(draft)
    assert _parent_id(telemetry.one("chat scripted")) == _span_id(agent_run)


async def test_failing_executor_marks_its_span_and_the_run(telemetry: Telemetry) -> None:
    @executor
    async def explode(text: str, ctx: WorkflowContext[None, str]) -> None:
        raise ValueError("no")

    workflow = WorkflowBuilder(start_executor=explode, name="fragile").build()
    with pytest.raises(ExecutorFailedException):
        await workflow.run("x")
    failed = telemetry.one("executor.process explode")
    assert failed.status.status_code == StatusCode.ERROR
    assert (failed.attributes or {})["error.type"] == "ValueError"
    run = telemetry.one("invoke_workflow fragile")
    assert run.status.status_code == StatusCode.ERROR
    assert (run.attributes or {})["error.type"] == "ExecutorFailedException"
