"""Scripted participants for the orchestration tests."""

from __future__ import annotations

import json
from typing import Any

from agentry import Agent, Message
from agentry.clients.scripted import ScriptedChatClient, ScriptItem
from agentry.workflows import InMemoryCheckpointStorage, Workflow, WorkflowEvent


def scripted(name: str, *responses: ScriptItem, description: str | None = None) -> Agent:
    """An agent named `name` answering with `responses` in order."""
    return Agent(client=ScriptedChatClient(responses), name=name, description=description)


def client_of(agent: Agent) -> ScriptedChatClient:
    client = agent.client
    assert isinstance(client, ScriptedChatClient)
    return client


def seen(agent: Agent, call: int = -1) -> list[tuple[str, str]]:
    """(role, text) of the messages the agent's model got in one call (system left out)."""
    return [(m.role, m.text) for m in client_of(agent).calls[call].messages if m.role != "system"]


def texts(messages: list[Message]) -> list[str]:
    return [m.text for m in messages]


def as_json(**fields: Any) -> str:
    return json.dumps(fields)


def events_of(events: list[WorkflowEvent[Any]], kind: str) -> list[Any]:
    return [e.data for e in events if e.type == kind]


async def checkpoint_after(
    storage: InMemoryCheckpointStorage, workflow: Workflow, superstep: int
) -> str:
    """The id of the checkpoint saved after `superstep`."""
    for checkpoint in await storage.list_checkpoints(workflow_name=workflow.name):
        if checkpoint.iteration_count == superstep:
            return checkpoint.checkpoint_id
    raise AssertionError(f"no checkpoint after superstep {superstep}")
