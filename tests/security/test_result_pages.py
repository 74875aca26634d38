"""A pageable result limit lets the model read a cut result page by page."""

from __future__ import annotations

from agentry import Agent, AgentSession, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.security import ResultSizeLimit

call = ScriptedChatClient.function_call
LETTERS = "".join(chr(ord("a") + i % 26) for i in range(50))


@tool
def long_report() -> str:
    """Return a long report."""
    return LETTERS


def tool_results(model: ScriptedChatClient, turn: int) -> list[str]:
    return [
        str(c.result)
        for m in model.calls[turn].messages[-1:]
        for c in m.contents
        if c.type == "function_result"
    ]


def offered_tools(model: ScriptedChatClient, turn: int) -> list[str]:
    return [t.name for t in model.calls[turn].options.get("tools", [])]


async def test_a_cut_result_is_read_on_through_the_offered_tool() -> None:
    model = ScriptedChatClient(
        [
            call("long_report", {}),
            call("read_tool_result", {"result_id": "result-1", "offset": 20}),
            call("read_tool_result", {"result_id": "result-1", "offset": 40}),
            "Read it all.",
        ]
    )
    limit = ResultSizeLimit(max_chars=20, pageable=True)
    agent = Agent(client=model, tools=[long_report], middleware=[limit])

    response = await agent.run("Report?")

    assert response.text == "Read it all."
    assert offered_tools(model, 0) == ["long_report"]
    assert offered_tools(model, 1) == ["long_report", "read_tool_result"]
    first, second, third = (tool_results(model, turn)[0] for turn in (1, 2, 3))
    assert first.startswith(LETTERS[:20] + "\n")
    assert "read_tool_result(result_id='result-1', offset=20)" in first
    assert second.startswith(LETTERS[20:40] + "\n")
    assert "offset=40" in second
    assert third == f"{LETTERS[40:]}\n[end of result result-1]"


async def test_results_are_kept_per_session_and_only_the_newest() -> None:
    limit = ResultSizeLimit(max_chars=20, pageable=True, keep=1)
    model = ScriptedChatClient([call("long_report", {}), "cut", call("long_report", {}), "cut"])
    agent = Agent(client=model, tools=[long_report], middleware=[limit])
    owner = AgentSession()
    await agent.run("Report?", session=owner)
    await agent.run("Again?", session=owner)

    model.add(call("read_tool_result", {"result_id": "result-1", "offset": 20}), "gone")
    await agent.run("Old one?", session=owner, tools=[limit.read_tool_result])
    assert "no kept result 'result-1'. Kept results: result-2." in tool_results(model, -1)[0]

    model.add(call("read_tool_result", {"result_id": "result-2", "offset": 20}), "not yours")
    await agent.run("Someone else's?", session=AgentSession(), tools=[limit.read_tool_result])
    assert "no kept result 'result-2'. Kept results: none." in tool_results(model, -1)[0]


async def test_a_bad_offset_is_an_error_the_model_can_act_on() -> None:
    limit = ResultSizeLimit(max_chars=20, pageable=True)
    model = ScriptedChatClient(
        [
            call("long_report", {}),
            call("read_tool_result", {"result_id": "result-1", "offset": 50}),
            "done",
        ]
    )
    await Agent(client=model, tools=[long_report], middleware=[limit]).run("Report?")
    assert tool_results(model, 2) == ["Error: offset must be from 0 to 49, not 50."]


async def test_without_pageable_no_tool_is_offered() -> None:
    model = ScriptedChatClient([call("long_report", {}), "cut"])
    limit = ResultSizeLimit(max_chars=20)
    await Agent(client=model, tools=[long_report], middleware=[limit]).run("Report?")
    assert offered_tools(model, 1) == ["long_report"]
    assert tool_results(model, 1)[0].endswith("over the limit of 20; ask for less]")


async def test_a_tool_offered_during_a_run_is_not_kept_by_the_agent() -> None:
    limit = ResultSizeLimit(max_chars=20, pageable=True)
    model = ScriptedChatClient([call("long_report", {}), "cut", "plain"])
    agent = Agent(client=model, tools=[long_report], middleware=[limit])
    await agent.run("Report?")
    await agent.run("Hi")
    assert [t.name for t in agent.tools] == ["long_report"]
    assert offered_tools(model, 2) == ["long_report"]
