"""Small builders shared by the A2A tests."""

from __future__ import annotations

import uuid
from typing import Any

from a2a.client import Client
from a2a.types import Message, Part, Role, SendMessageRequest, StreamResponse, Task
from google.protobuf import json_format, struct_pb2

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.types import ChatOptions
from agentry.types import Message as AgentryMessage


def user_message(
    *texts: str, context_id: str = "", task_id: str = "", data: Any = None
) -> SendMessageRequest:
    parts = [Part(text=t) for t in texts]
    if data is not None:
        parts.append(Part(data=json_format.ParseDict(data, struct_pb2.Value())))
    return SendMessageRequest(
        message=Message(
            message_id=uuid.uuid4().hex,
            role=Role.ROLE_USER,
            context_id=context_id,
            task_id=task_id,
            parts=parts,
        )
    )


async def collect(client: Client, request: SendMessageRequest) -> list[StreamResponse]:
    return [event async for event in client.send_message(request)]


async def send_blocking(client: Client, request: SendMessageRequest) -> Task:
    events = await collect(client, request)
    assert len(events) == 1, events
    assert events[0].HasField("task")
    return events[0].task


def artifact_text(task: Task) -> str:
    return "".join(p.text for a in task.artifacts for p in a.parts)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool(approval_mode="always_require")
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def count_users(messages: list[AgentryMessage], options: ChatOptions) -> str:
    """A scripted answer that says how many user messages the model saw."""
    del options
    return f"seen {sum(1 for m in messages if m.role == 'user')} user messages"


def adding_agent() -> tuple[Agent, ScriptedChatClient]:
    """An agent whose model calls `add` once, then answers with the result."""
    client = ScriptedChatClient(chunk_size=5)
    return Agent(client=client, name="calculator", description="Adds.", tools=[add]), client


def script_addition(client: ScriptedChatClient) -> None:
    client.add(
        ScriptedChatClient.function_call("add", {"a": 2, "b": 3}),
        lambda messages, options: f"The sum is {messages[-1].contents[0].result}.",
    )
