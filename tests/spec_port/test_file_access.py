"""The spec's file-access harness: stores, search results, the shared provider, and the
per-session memory it is contrasted with."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentry import (
    Agent,
    AgentFileStore,
    AgentSession,
    ContextProvider,
    FileAccessProvider,
    FileSearchMatch,
    FileSearchResult,
    FileSystemAgentFileStore,
    InMemoryAgentFileStore,
    MemoryContextProvider,
    SerializationMixin,
)
from agentry.clients.scripted import ScriptedChatClient
from agentry.files import FileAccessError

TOOL_NAMES = [
    "file_access_save_file",
    "file_access_read_file",
    "file_access_delete_file",
    "file_access_list_files",
    "file_access_search_files",
]


@pytest.fixture(params=["memory", "disk"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> AgentFileStore:
    if request.param == "memory":
        return InMemoryAgentFileStore()
    return FileSystemAgentFileStore(tmp_path / "files")


async def test_a_store_saves_lists_searches_and_deletes(store: AgentFileStore) -> None:
    await store.create_directory("notes")
    await store.write_file("notes/plan.md", "1. Bake bread\n2. Sell bread\n3. Rest")
    await store.write_file("notes/todo.txt", "Buy flour")

    assert await store.read_file("notes/plan.md") == "1. Bake bread\n2. Sell bread\n3. Rest"
    assert await store.file_exists("notes/todo.txt")
    assert sorted(await store.list_files("notes")) == ["notes/plan.md", "notes/todo.txt"]
    (found,) = await store.search_files("bread", glob="*.md")
    assert isinstance(found, FileSearchResult)
    assert found.file_name == "notes/plan.md"
    assert "Bake bread" in found.snippet
    assert found.matches == [
        FileSearchMatch(line_number=1, line="1. Bake bread"),
        FileSearchMatch(line_number=2, line="2. Sell bread"),
    ]
    assert await store.delete_file("notes/todo.txt")
    assert not await store.file_exists("notes/todo.txt")


async def test_search_results_are_serialization_mixin_dtos(store: AgentFileStore) -> None:
    await store.write_file("a.txt", "one\ntwo\nthree")
    (found,) = await store.search_files("t", regex=True)

    assert isinstance(found, SerializationMixin)
    assert isinstance(found.matches[0], SerializationMixin)
    assert FileSearchResult.from_dict(json.loads(json.dumps(found.to_dict()))) == found
    assert FileSearchResult.from_json(found.to_json()) == found
    assert [m.line_number for m in found.matches] == [2, 3]


async def test_the_disk_store_stays_inside_its_root(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    store = FileSystemAgentFileStore(tmp_path / "root")
    await store.write_file("ok.txt", "fine")
    os.symlink(outside, tmp_path / "root" / "link")

    for path in ("../outside/secret.txt", "/etc/passwd", "link/secret.txt"):
        with pytest.raises(FileAccessError):
            await store.read_file(path)
    assert await store.list_files(recursive=True) == ["ok.txt"]


async def test_the_file_access_provider_is_shared_across_agents_and_sessions() -> None:
    store = InMemoryAgentFileStore()
    files = FileAccessProvider(store)
    writer_model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call(
                "file_access_save_file", {"path": "handover.md", "content": "Otters: done."}
            ),
            "Saved.",
        ]
    )
    reader_model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("file_access_read_file", {"path": "handover.md"}),
            lambda messages, options: f"It says: {messages[-1].contents[0].result}",
        ]
    )
    writer = Agent(client=writer_model, context_providers=[files])
    reader = Agent(client=reader_model, context_providers=[files])
    await writer.run("Save the handover.", session=writer.create_session())
    response = await reader.run("Read the handover.", session=reader.create_session())

    assert isinstance(files, ContextProvider)
    assert [tool.name for tool in files.tools] == TOOL_NAMES
    assert reader_model.calls[0].tool_names == TOOL_NAMES
    assert "file_access_" in reader_model.calls[0].messages[0].text  # usage instructions
    assert response.text == "It says: Otters: done."
    assert await store.read_file("handover.md") == "Otters: done."


async def test_memories_are_kept_per_session_unlike_shared_files() -> None:
    memory = MemoryContextProvider()
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("memory_remember", {"text": "Likes tea."}),
            "Noted.",
            lambda messages, options: messages[0].text,
            lambda messages, options: messages[0].text,
        ]
    )
    agent = Agent(client=model, context_providers=[memory])
    ada, bob = AgentSession(), AgentSession()
    await agent.run("I like tea.", session=ada)
    to_ada = await agent.run("What do I like?", session=ada)
    to_bob = await agent.run("What do I like?", session=bob)

    assert memory.memories(ada) == ["Likes tea."]
    assert memory.memories(bob) == []
    assert "Likes tea." in to_ada.text
    assert "Likes tea." not in to_bob.text
    restored = AgentSession.from_dict(json.loads(json.dumps(ada.to_dict())))
    assert memory.memories(restored) == ["Likes tea."]
