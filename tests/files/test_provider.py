"""FileAccessProvider: an agent saves, lists, searches and reads files through its tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentry import Agent, Content, Message
from agentry.clients.scripted import ScriptedChatClient
from agentry.files import FileAccessProvider, FileSystemAgentFileStore, InMemoryAgentFileStore

call = ScriptedChatClient.function_call


def results(model: ScriptedChatClient) -> list[Any]:
    return [
        c.result
        for m in model.calls[-1].messages
        for c in m.contents
        if c.type == "function_result"
    ]


async def test_an_agent_works_with_files_through_the_tools(tmp_path: Path) -> None:
    store = FileSystemAgentFileStore(tmp_path)
    model = ScriptedChatClient(
        [
            call("file_access_save_file", {"path": "notes/plan.md", "content": "1. Bake\n2. Sell"}),
            call("file_access_list_files", {}),
            call("file_access_search_files", {"pattern": "sell"}),
            call("file_access_read_file", {"path": "notes/plan.md"}),
            call("file_access_read_file", {"path": "../escape.txt"}),
            "The plan has two steps.",
        ]
    )
    agent = Agent(client=model, context_providers=[FileAccessProvider(store)])

    response = await agent.run("Write a plan and check it.")

    assert response.text == "The plan has two steps."
    assert (tmp_path / "notes" / "plan.md").read_text() == "1. Bake\n2. Sell"
    assert "file_access_save_file" in model.calls[0].tool_names
    assert "file_access_*" in model.calls[0].messages[0].text  # the instructions
    assert results(model) == [
        "Saved notes/plan.md (15 characters).",
        "notes/plan.md",
        "notes/plan.md:2: 2. Sell",
        "1. Bake\n2. Sell",
        "Error: path '../escape.txt' leaves its folder with '..'; remove it",
    ]


async def test_the_store_is_shared_across_sessions_and_agents() -> None:
    provider = FileAccessProvider(InMemoryAgentFileStore())
    writer_model = ScriptedChatClient(
        [call("file_access_save_file", {"path": "a.txt", "content": "shared"}), "Saved."]
    )
    reader_model = ScriptedChatClient([call("file_access_read_file", {"path": "a.txt"}), "Read."])
    writer = Agent(client=writer_model, context_providers=[provider])
    reader = Agent(client=reader_model, context_providers=[provider])

    await writer.run("Save it.", session=writer.create_session())
    await reader.run("Read it.", session=reader.create_session())

    assert results(reader_model) == ["shared"]


async def test_read_only_offers_no_writing_tools() -> None:
    provider = FileAccessProvider(InMemoryAgentFileStore(), read_only=True)
    assert [t.name for t in provider.tools] == [
        "file_access_read_file",
        "file_access_list_files",
        "file_access_search_files",
    ]


async def test_changes_can_wait_for_approval() -> None:
    store = InMemoryAgentFileStore()
    model = ScriptedChatClient(
        [call("file_access_save_file", {"path": "a.txt", "content": "x"}), "Saved it."]
    )
    agent = Agent(
        client=model, context_providers=[FileAccessProvider(store, require_approval=True)]
    )
    session = agent.create_session()

    paused = await agent.run("Save a.txt.", session=session)
    assert not await store.file_exists("a.txt")
    (request,) = paused.user_input_requests
    approval: Content = request.to_function_approval_response(approved=True)
    done = await agent.run(Message("user", [approval]), session=session)

    assert done.text == "Saved it."
    assert await store.read_file("a.txt") == "x"
