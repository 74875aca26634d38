"""Follow-up messages on a task: message ids and metadata, and messages the server
refuses (new messages instead of answers: `test_durable_follow_ups.py`)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest
from a2a.types import ListTasksRequest, Message, Part, Role, SendMessageRequest, TaskState
from a2a.utils.errors import InvalidParamsError
from google.protobuf import json_format, struct_pb2

from agentry import Agent, Content, tool
from agentry import Message as AgentryMessage
from agentry.a2a import A2AAgent
from agentry.clients.scripted import ScriptedChatClient
from agentry.middleware import AgentContext, agent_middleware
from agentry.types import ChatOptions

from .conftest import BINDINGS, a2a_client, serve
from .helpers import send_blocking, user_message

pytestmark = pytest.mark.timeout(30)

deleted: list[str] = []


@tool(approval_mode="always_require")
def remove_file(path: str) -> str:
    """Delete a file."""
    deleted.append(path)
    return f"deleted {path}"


def answer_what_it_saw(messages: list[AgentryMessage], options: ChatOptions) -> str:
    """Says which roles the model saw last, and the text of the user's last message."""
    del options
    roles = [m.role for m in messages[-3:]]
    return f"saw {roles}: {messages[-1].text}"


def waiting_agent() -> tuple[Agent, ScriptedChatClient]:
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("remove_file", {"path": "a.txt"}, call_id="c1"),
            answer_what_it_saw,
        ]
    )
    return Agent(client=model, name="files", tools=[remove_file]), model


def rpc_send(message: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}


def seen_by_the_agent() -> tuple[Agent, list[tuple[str | None, Any]]]:
    """An agent that waits for an approval, recording the id and metadata of each input."""
    seen: list[tuple[str | None, Any]] = []

    @agent_middleware
    async def record(context: AgentContext, call_next: Any) -> None:
        for message in context.messages:
            metadata = (message.additional_properties or {}).get("a2a_metadata")
            seen.append((message.message_id, metadata))
        await call_next()

    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("remove_file", {"path": "a.txt"}, call_id="c1"),
            "done",
        ]
    )
    agent = Agent(client=model, name="files", tools=[remove_file], middleware=[record])
    return agent, seen


@pytest.mark.parametrize("binding", BINDINGS)
async def test_follow_ups_keep_the_clients_message_id_and_metadata(binding: str) -> None:
    agent, seen = seen_by_the_agent()

    def message(text: str, message_id: str, metadata: dict[str, Any], task_id: str = "") -> Any:
        return SendMessageRequest(
            message=Message(
                message_id=message_id,
                role=Role.ROLE_USER,
                task_id=task_id,
                parts=[Part(text=text)],
                metadata=json_format.ParseDict(metadata, struct_pb2.Struct()),
            )
        )

    async with serve(agent) as server, a2a_client(server.url, binding, streaming=False) as client:
        waiting = await send_blocking(client, message("Delete a.txt", "m-1", {"turn": 1}))
        done = await send_blocking(
            client, message("yes", "m-2", {"turn": 2, "from": "phone"}, waiting.id)
        )
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert seen == [("m-1", {"turn": 1}), ("m-2", {"turn": 2, "from": "phone"})]
    assert [m.message_id for m in done.history if m.role == Role.ROLE_USER] == ["m-1", "m-2"]


async def test_a_message_without_content_leaves_no_task_behind() -> None:
    agent = Agent(client=ScriptedChatClient(["hello"]), name="plain")
    async with serve(agent) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
            refused = await http.post(
                "/",
                json=rpc_send(
                    {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": ""}]}
                ),
                headers={"A2A-Version": "1.0"},
            )
        async with a2a_client(server.url, streaming=False) as client:
            with pytest.raises(InvalidParamsError, match="no content"):
                await send_blocking(client, user_message(""))
            tasks = (await client.list_tasks(ListTasksRequest())).tasks
    assert refused.json()["error"]["code"] == -32602
    assert "no content" in json.dumps(refused.json()["error"])
    assert list(tasks) == []


async def test_an_empty_follow_up_leaves_the_waiting_task_waiting() -> None:
    deleted.clear()
    agent, _ = waiting_agent()
    async with serve(agent) as server, a2a_client(server.url, streaming=False) as client:
        waiting = await send_blocking(client, user_message("Delete a.txt"))
        with pytest.raises(InvalidParamsError, match="no content"):
            await send_blocking(client, user_message("", task_id=waiting.id))
        tasks = (await client.list_tasks(ListTasksRequest())).tasks
        done = await send_blocking(client, user_message("yes", task_id=waiting.id))
    assert [t.status.state for t in tasks] == [TaskState.TASK_STATE_INPUT_REQUIRED]
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert deleted == ["a.txt"]


async def test_a2a_agent_sends_the_message_id_and_metadata_of_its_input() -> None:
    agent, seen = seen_by_the_agent()
    async with serve(agent) as server, A2AAgent(url=server.url) as remote:
        session = remote.create_session()
        first = AgentryMessage(
            "user",
            ["Delete a.txt"],
            message_id="m-1",
            additional_properties={"a2a_metadata": {"turn": 1}},
        )
        waiting = await remote.run(first, session=session)
        [request] = waiting.user_input_requests
        answer = AgentryMessage(
            "user",
            [request.to_function_approval_response(True)],
            message_id="m-2",
            additional_properties={"a2a_metadata": {"turn": 2}},
        )
        done = await remote.run(answer, session=session)
    assert done.text == "done"
    assert seen == [("m-1", {"turn": 1}), ("m-2", {"turn": 2})]


@pytest.mark.parametrize("streaming", [True, False])
async def test_a2a_agent_shows_what_came_before_an_approval_only_once(streaming: bool) -> None:
    call = Content.from_function_call(call_id="c1", name="remove_file", arguments={"path": "b"})
    model = ScriptedChatClient([AgentryMessage("assistant", ["Removing b. ", call]), "Removed."])
    agent = Agent(client=model, name="files", tools=[remove_file])
    async with serve(agent) as server, A2AAgent(url=server.url, streaming=streaming) as remote:
        session = remote.create_session()
        first = await remote.run("remove b", session=session)
        answer = first.user_input_requests[0].to_function_approval_response(approved=True)
        second = await remote.run(AgentryMessage("user", [answer]), session=session)
    assert first.text.startswith("Removing b. ")
    assert second.text == "Removed."
