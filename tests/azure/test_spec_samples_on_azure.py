"""The specification's samples that use `OpenAIChatClient`, written for Azure OpenAI and
for Azure AI Foundry: only the import and the client's name change. Each sample runs as a
reader would write it, with its settings from the environment; the services are the local
Azure front (tests/azure/front.py) with a recorded Responses exchange behind it, and
Microsoft Entra ID tokens come from the real `DefaultAzureCredential` asking a stand-in
`az` command."""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.azure.conftest import FrontFor
from tests.azure.entra import install_fake_az
from tests.azure.front import API_KEY, AZURE_OPENAI_RESOURCE, FOUNDRY_RESOURCE, entra_token

# "Key Patterns" of the specification's core package, as written there but for the import.
CREATING_AN_AGENT = '''
from agentry import Agent
from {module} import {client}

def my_function(city: str) -> str:
    """Look up a city."""
    return city

agent = Agent(
    client={client}(),
    instructions="You are helpful.",
    tools=[my_function],
)
response = await agent.run("Hello")
'''
AS_AGENT_SHORTHAND = """
from {module} import {client}

agent = {client}().as_agent(
    name="Assistant",
    instructions="You are helpful.",
)
response = await agent.run("Hello")
"""


@dataclass(frozen=True)
class ClientShape:
    """A client the samples are written for, how its reader configures it, and what the
    service must receive."""

    id: str
    module: str
    client: str
    environment: dict[str, str]
    """Settings; `{url}` stands for the front's URL."""
    path: str
    authorization: str

    def __str__(self) -> str:
        return self.id


SHAPES = [
    ClientShape(
        "azure-openai-with-a-key",
        "agentry.azure",
        "AzureOpenAIChatClient",
        {
            "AZURE_OPENAI_ENDPOINT": "{url}",
            "AZURE_OPENAI_API_KEY": API_KEY,
            "AZURE_OPENAI_CHAT_MODEL": "gpt-4.1-mini",
        },
        "/openai/v1/responses",
        f"Bearer {API_KEY}",
    ),
    ClientShape(
        "azure-openai-classic-url-signed-in-with-entra-id",
        "agentry.azure",
        "AzureOpenAIChatClient",
        {
            "AZURE_OPENAI_ENDPOINT": "{url}",
            "AZURE_OPENAI_API_VERSION": "2025-04-01-preview",
            "AZURE_OPENAI_CHAT_MODEL": "gpt-4.1-mini",
        },
        "/openai/responses",
        f"Bearer {entra_token(AZURE_OPENAI_RESOURCE)}",
    ),
    ClientShape(
        "foundry-project",
        "agentry.foundry",
        "FoundryChatClient",
        {"FOUNDRY_PROJECT_ENDPOINT": "{url}/api/projects/demo", "FOUNDRY_MODEL": "gpt-4.1-mini"},
        "/api/projects/demo/openai/v1/responses",
        f"Bearer {entra_token(FOUNDRY_RESOURCE)}",
    ),
]


@pytest.fixture(autouse=True)
def signed_in_with_az(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`az login` done: DefaultAzureCredential finds the Azure CLI (and only it)."""
    monkeypatch.setenv("PATH", install_fake_az(tmp_path))
    monkeypatch.setenv("AZURE_TOKEN_CREDENTIALS", "AzureCliCredential")
    for name in ("FOUNDRY_PROJECT_ENDPOINT", "AZURE_AI_PROJECT_ENDPOINT", "FOUNDRY_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize(
    ("sample", "tools"),
    [(CREATING_AN_AGENT, ["my_function"]), (AS_AGENT_SHORTHAND, [])],
    ids=["creating-an-agent", "as-agent-shorthand"],
)
async def test_a_spec_sample_runs_with_only_the_import_changed(
    front_for: FrontFor,
    monkeypatch: pytest.MonkeyPatch,
    shape: ClientShape,
    sample: str,
    tools: list[str],
) -> None:
    front = front_for("responses_text")
    for name, value in shape.environment.items():
        monkeypatch.setenv(name, value.format(url=front.url))

    names = await _run(sample.format(module=shape.module, client=shape.client))

    assert names["response"].text == "Paris."
    assert names["agent"].instructions == "You are helpful."
    (seen,) = front.seen
    assert (seen.path, seen.headers["authorization"]) == (shape.path, shape.authorization)
    assert seen.body["model"] == "gpt-4.1-mini"
    assert seen.body["instructions"] == "You are helpful."
    assert [t["name"] for t in seen.body.get("tools", [])] == tools


async def _run(source: str) -> dict[str, Any]:
    """Run a sample with top-level `await`, as a notebook or `python -m asyncio` would; the
    names it defined."""
    code = compile(source, "<sample>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    names: dict[str, Any] = {}
    result = eval(code, names)  # the sample is this file's own text
    if inspect.isawaitable(result):
        await result
    return names
