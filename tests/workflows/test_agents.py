from __future__ import annotations

from typing import Any

import pytest
from typing_extensions import Never

from agentry import Agent, AgentResponse, AgentResponseUpdate, Content, Message, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.workflows import (
    AgentExecutor,
    AgentExecutorRequest,
    AgentExecutorResponse,
    Executor,
    InMemoryCheckpointStorage,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowRunState,
    executor,
    handler,
    response_handler,
)

deleted: list[str] = []


@tool(approval_mode="always_require")
def delete_file(path: str) -> str:
    """Delete a file."""
    deleted.append(path)
    return f"deleted {path}"


@executor
async def finish(response: AgentExecutorResponse, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(f"{response.executor_id} said: {response.agent_response.text}")


async def test_an_agent_answers_and_its_response_goes_on() -> None:
    writer = ScriptedChatClient(["A short poem."]).as_agent(name="writer")
    workflow = WorkflowBuilder(start_executor=writer).add_edge(writer, finish).build()
    result = await workflow.run("write a poem")
    outputs = result.get_outputs()
    assert isinstance(outputs[0], AgentResponse)
    assert outputs[0].text == "A short poem."
    assert outputs[1] == "writer said: A short poem."


async def test_chained_agents_see_the_whole_conversation() -> None:
    writer_client = ScriptedChatClient(["Draft: roses are red."])
    reviewer_client = ScriptedChatClient(["Looks good."])
    writer = writer_client.as_agent(name="writer")
    reviewer = reviewer_client.as_agent(name="reviewer")
    workflow = (
        WorkflowBuilder(start_executor=writer, output_from=[finish])
        .add_chain([writer, reviewer, finish])
        .build()
    )
    result = await workflow.run("write a poem")
    assert result.get_outputs() == ["reviewer said: Looks good."]
    seen = reviewer_client.calls[0].messages
    assert [(m.role, m.text) for m in seen] == [
        ("user", "write a poem"),
        ("assistant", "Draft: roses are red."),
    ]


async def test_agents_in_a_loop_get_only_what_they_have_not_seen() -> None:
    writer_client = ScriptedChatClient(["Draft 1.", "Draft 2."])
    reviewer_client = ScriptedChatClient(["Shorter, please.", "Approved."])
    writer = writer_client.as_agent(name="writer")
    reviewer = reviewer_client.as_agent(name="reviewer")

    def needs_work(response: AgentExecutorResponse) -> bool:
        return response.agent_response.text != "Approved."

    workflow = (
        WorkflowBuilder(start_executor=writer, output_from=[finish])
        .add_edge(writer, reviewer)
        .add_edge(reviewer, writer, condition=needs_work)
        .add_edge(reviewer, finish, condition=lambda r: not needs_work(r))
        .build()
    )
    result = await workflow.run("write")
    assert result.get_outputs() == ["reviewer said: Approved."]
    second_review = reviewer_client.calls[1].messages
    assert [m.text for m in second_review] == ["write", "Draft 1.", "Shorter, please.", "Draft 2."]
    second_draft = writer_client.calls[1].messages
    assert [m.text for m in second_draft] == ["write", "Draft 1.", "Shorter, please."]


async def test_streaming_yields_each_update_as_it_comes() -> None:
    writer = ScriptedChatClient(["abcdef"], chunk_size=2).as_agent(name="writer")
    workflow = WorkflowBuilder(start_executor=writer).add_edge(writer, finish).build()
    events = [e async for e in workflow.run("go", stream=True)]
    updates = [
        e.data for e in events if e.type == "output" and isinstance(e.data, AgentResponseUpdate)
    ]
    assert [u.text for u in updates] == ["ab", "cd", "ef"]
    assert [e.data for e in events if e.type == "output" and isinstance(e.data, str)] == [
        "writer said: abcdef"
    ]


async def test_a_request_without_a_reply_only_collects_messages() -> None:
    client = ScriptedChatClient(["Both noted."])
    agent = AgentExecutor(client.as_agent(name="notes"))

    @executor
    async def start(texts: list[str], ctx: WorkflowContext[AgentExecutorRequest]) -> None:
        for index, text in enumerate(texts):
            last = index == len(texts) - 1
            await ctx.send_message(
                AgentExecutorRequest([Message("user", [text])], should_respond=last)
            )

    workflow = (
        WorkflowBuilder(start_executor=start, output_from=[finish])
        .add_chain([start, agent, finish])
        .build()
    )
    result = await workflow.run(["one", "two"])
    assert result.get_outputs() == ["notes said: Both noted."]
    assert [m.text for m in client.calls[0].messages] == ["one", "two"]


def approval_workflow(client: ScriptedChatClient, name: str = "ops") -> Any:
    agent = Agent(client=client, name="ops", tools=[delete_file])
    return (
        WorkflowBuilder(name=name, start_executor=agent, output_from=[finish])
        .add_edge(agent, finish)
        .build()
    )


def approval_client() -> ScriptedChatClient:
    return ScriptedChatClient(
        [
            ScriptedChatClient.function_call("delete_file", {"path": "a.txt"}, call_id="c1"),
            "Deleted a.txt.",
        ]
    )


async def test_tool_approvals_become_requests_of_the_run() -> None:
    deleted.clear()
    workflow = approval_workflow(approval_client())
    first = await workflow.run("delete a.txt")
    assert first.get_final_state() is WorkflowRunState.IDLE_WITH_PENDING_REQUESTS
    (request,) = first.get_request_info_events()
    assert isinstance(request.data, Content)
    assert request.data.type == "function_approval_request"
    assert deleted == []
    assert request.request_id is not None
    answer = request.data.to_function_approval_response(approved=True)
    second = await workflow.run(responses={request.request_id: answer})
    assert deleted == ["a.txt"]
    assert second.get_outputs() == ["ops said: Deleted a.txt."]


async def test_an_agent_waiting_for_approval_resumes_from_a_checkpoint() -> None:
    deleted.clear()
    storage = InMemoryCheckpointStorage()
    client = approval_client()
    first = await approval_workflow(client).run("delete a.txt", checkpoint_storage=storage)
    request = first.get_request_info_events()[0]
    assert isinstance(request.data, Content)
    assert request.request_id is not None
    latest = await storage.get_latest(workflow_name="ops")
    assert latest is not None

    # A new workflow (same script continues) restored from the checkpoint finishes the job.
    answer = request.data.to_function_approval_response(approved=True)
    second = await approval_workflow(client).run(
        checkpoint_id=latest.checkpoint_id,
        checkpoint_storage=storage,
        responses={request.request_id: answer},
    )
    assert deleted == ["a.txt"]
    assert second.get_outputs() == ["ops said: Deleted a.txt."]


async def test_a_workflow_runs_as_an_agent() -> None:
    @executor
    async def echo(messages: list[Message], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"echo: {messages[-1].text}")

    agent = WorkflowBuilder(name="echoer", start_executor=echo).build().as_agent()
    assert agent.name == "echoer"
    response = await agent.run("hello")
    assert response.text == "echo: hello"
    updates = [u async for u in agent.run("again", stream=True)]
    assert [u.text for u in updates] == ["echo: again"]
    assert updates[0].author_name == "echo"


async def test_an_agent_workflow_streams_its_agents_updates() -> None:
    inner = ScriptedChatClient(["streamed answer"], chunk_size=4).as_agent(name="inner")

    @executor
    async def start(messages: list[Message], ctx: WorkflowContext[list[Message]]) -> None:
        await ctx.send_message(messages)

    workflow = (
        WorkflowBuilder(start_executor=start, output_from=[inner]).add_edge(start, inner).build()
    )
    agent = workflow.as_agent(name="wrapper")
    stream = agent.run("hi", stream=True)
    texts = [u.text async for u in stream]
    assert texts == ["stre", "amed", " ans", "wer"]
    final = await stream.get_final_response()
    assert final.text == "streamed answer"
    non_streaming = ScriptedChatClient(["whole"]).as_agent(name="inner")
    plain = (
        WorkflowBuilder(start_executor=start, output_from=[non_streaming])
        .add_edge(start, non_streaming)
        .build()
    )
    assert (await plain.as_agent().run("hi")).text == "whole"


async def test_workflow_requests_become_function_calls_answered_by_results() -> None:
    class Asker(Executor):
        @handler
        async def ask(self, messages: list[Message], ctx: WorkflowContext[Never, str]) -> None:
            await ctx.request_info({"question": "your name?"}, str)

        @response_handler
        async def greet(
            self, question: dict[str, str], name: str, ctx: WorkflowContext[Never, str]
        ) -> None:
            await ctx.yield_output(f"hello {name}")

    agent = WorkflowBuilder(start_executor=Asker(id="asker")).build().as_agent(name="greeter")
    first = await agent.run("hi")
    (call,) = [c for m in first.messages for c in m.contents if c.type == "function_call"]
    assert call.name == "request_info"
    assert call.parse_arguments()["data"] == {"question": "your name?"}
    assert call.call_id is not None
    answer = Message("tool", [Content.from_function_result(call_id=call.call_id, result="Ada")])
    second = await agent.run(answer)
    assert second.text == "hello Ada"


async def test_tool_approvals_pass_through_a_workflow_agent() -> None:
    deleted.clear()
    agent = approval_workflow(approval_client()).as_agent(name="ops-agent")
    first = await agent.run("delete a.txt")
    (request,) = first.user_input_requests
    assert request.function_call is not None
    assert request.function_call.name == "delete_file"
    second = await agent.run(
        Message("user", [request.to_function_approval_response(approved=True)])
    )
    assert deleted == ["a.txt"]
    assert second.text == "ops said: Deleted a.txt."


def test_as_agent_needs_a_start_executor_taking_messages() -> None:
    @executor
    async def numbers(n: int, ctx: WorkflowContext[Never, int]) -> None:
        pass

    with pytest.raises(TypeError, match=r"does not accept list\[Message\]"):
        WorkflowBuilder(start_executor=numbers).build().as_agent()
