from agentry import Agent, Message, tool
from agentry.clients.scripted import ScriptedChatClient

deleted: list[str] = []


@tool(approval_mode="always_require")
def delete_file(path: str) -> str:
    """Delete a file."""
    deleted.append(path)
    return f"deleted {path}"


@tool
def list_files() -> list[str]:
    """List files."""
    return ["a.txt"]


def _client(*answers: str) -> ScriptedChatClient:
    return ScriptedChatClient(
        [ScriptedChatClient.function_call("delete_file", {"path": "a.txt"}, call_id="c1"), *answers]
    )


def _list_and_delete_client() -> ScriptedChatClient:
    """A model that lists files and deletes one in one turn, then answers."""
    calls: list[tuple[str, dict[str, str], str]] = [
        ("list_files", {}, "c0"),
        ("delete_file", {"path": "a.txt"}, "c1"),
    ]
    return ScriptedChatClient([ScriptedChatClient.function_calls(calls), "Listed and deleted."])


async def test_a_call_needing_approval_pauses_the_run() -> None:
    deleted.clear()
    agent = Agent(client=_client(), tools=[delete_file])
    response = await agent.run("delete a.txt", session=agent.create_session())
    (request,) = response.user_input_requests
    assert request.function_call is not None
    assert (request.id, request.function_call.name) == ("c1", "delete_file")
    assert deleted == []


async def test_an_approved_call_runs_and_the_model_continues() -> None:
    deleted.clear()
    client = _client("Deleted it.")
    agent = Agent(client=client, tools=[delete_file])
    session = agent.create_session()
    first = await agent.run("delete a.txt", session=session)
    answer = first.user_input_requests[0].to_function_approval_response(approved=True)
    second = await agent.run(Message("user", [answer]), session=session)
    assert deleted == ["a.txt"]
    assert second.text == "Deleted it."
    sent = client.calls[1].messages
    assert [m.role for m in sent] == ["user", "assistant", "tool"]
    assert sent[-1].contents[0].result == "deleted a.txt"
    assert all(c.type != "function_approval_response" for m in sent for c in m.contents)


async def test_a_rejected_call_does_not_run_and_the_model_is_told() -> None:
    deleted.clear()
    client = _client("OK, I will not.")
    agent = Agent(client=client, tools=[delete_file])
    session = agent.create_session()
    first = await agent.run("delete a.txt", session=session)
    answer = first.user_input_requests[0].to_function_approval_response(approved=False)
    second = await agent.run(Message("user", [answer]), session=session)
    assert deleted == []
    assert second.text == "OK, I will not."
    assert "did not approve" in client.calls[1].messages[-1].contents[0].result


async def test_approval_works_without_a_session_when_the_caller_resends_the_request() -> None:
    deleted.clear()
    client = _client("Done.")
    agent = Agent(client=client, tools=[delete_file])
    first = await agent.run("delete a.txt")
    request = first.user_input_requests[0]
    second = await agent.run(
        [
            "delete a.txt",
            Message("assistant", [request]),
            Message("user", [request.to_function_approval_response(approved=True)]),
        ]
    )
    assert deleted == ["a.txt"]
    assert second.text == "Done."
    roles = [m.role for m in client.calls[1].messages]
    assert roles[-2:] == ["assistant", "tool"]


async def test_calls_held_beside_one_needing_approval_run_after_it() -> None:
    deleted.clear()
    client = _list_and_delete_client()
    agent = Agent(client=client, tools=[delete_file, list_files])
    session = agent.create_session()
    first = await agent.run("tidy up", session=session)
    assert [r.id for r in first.user_input_requests] == ["c1"]
    answer = first.user_input_requests[0].to_function_approval_response(approved=True)
    await agent.run(Message("user", [answer]), session=session)
    results = {c.call_id: c.result for c in client.calls[1].messages[-1].contents}
    assert results == {"c0": ["a.txt"], "c1": "deleted a.txt"}


async def test_held_calls_run_without_a_session_when_the_caller_resends_the_turn() -> None:
    deleted.clear()
    client = _list_and_delete_client()
    agent = Agent(client=client, tools=[delete_file, list_files])
    first = await agent.run("tidy up")
    answer = first.user_input_requests[0].to_function_approval_response(approved=True)
    await agent.run(["tidy up", *first.messages, Message("user", [answer])])
    results = {c.call_id: c.result for c in client.calls[1].messages[-1].contents}
    assert results == {"c0": ["a.txt"], "c1": "deleted a.txt"}


async def test_streaming_surfaces_approval_requests() -> None:
    deleted.clear()
    agent = Agent(client=_client(), tools=[delete_file])
    stream = agent.run("delete", stream=True, session=agent.create_session())
    requests = [r async for u in stream for r in u.user_input_requests]
    assert [r.id for r in requests] == ["c1"]
    assert [r.id for r in (await stream.get_final_response()).user_input_requests] == ["c1"]
