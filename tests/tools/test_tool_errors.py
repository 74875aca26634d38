"""What the model, the developer's code and the result learn when a tool raises."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from agentry import Agent, Content, FunctionInvocationConfiguration, tool, use_function_invocation
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ToolExecutionError

KEY = "sk-abcdefghijklmnopqrstuvwx"


@tool
def fetch(url: str) -> str:
    """Fetch a page."""
    raise ValueError(f"upstream rejected {url} with key {KEY}")


@tool
def book(room: str) -> str:
    """Book a room."""
    raise ToolExecutionError(f"room {room} is taken until 3 pm; pick another room")


def _results(client: ScriptedChatClient) -> list[Content]:
    """The function results the model was sent on its second call."""
    return [
        content
        for message in client.calls[1].messages
        for content in message.contents
        if content.type == "function_result"
    ]


async def test_by_default_the_model_learns_which_tool_failed_how_and_what_to_do() -> None:
    client = ScriptedChatClient([ScriptedChatClient.function_call("fetch", {"url": "x"}), "ok"])
    await Agent(client=client, tools=[fetch]).run("go")

    (result,) = _results(client)
    text = str(result.result)
    assert text.startswith("Error: tool 'fetch' failed with ValueError (details are not shown).")
    assert "Retry only if different arguments could help" in text
    assert "upstream" not in text
    assert KEY not in text


async def test_the_result_carries_the_exception_itself() -> None:
    client = ScriptedChatClient([ScriptedChatClient.function_call("fetch", {"url": "x"}), "ok"])
    response = await Agent(client=client, tools=[fetch]).run("go")

    (result,) = [c for m in response.messages for c in m.contents if c.type == "function_result"]
    assert isinstance(result.exception, ValueError)
    assert str(result.exception) == f"upstream rejected x with key {KEY}"


async def test_detailed_errors_tell_the_message_with_common_secrets_masked() -> None:
    client = ScriptedChatClient([ScriptedChatClient.function_call("fetch", {"url": "x"}), "ok"])
    config = FunctionInvocationConfiguration(include_detailed_errors=True)
    await Agent(client=client, tools=[fetch], function_invocation_configuration=config).run("go")

    (result,) = _results(client)
    assert result.result == (
        "Error: tool 'fetch' failed: ValueError: upstream rejected x with key [REDACTED]"
    )


async def test_a_tool_execution_error_is_told_to_the_model_without_detailed_errors() -> None:
    client = ScriptedChatClient([ScriptedChatClient.function_call("book", {"room": "B2"}), "ok"])
    await Agent(client=client, tools=[book]).run("go")

    (result,) = _results(client)
    assert result.result == (
        "Error: tool 'book' failed: ToolExecutionError: room B2 is taken until 3 pm; "
        "pick another room"
    )


async def test_an_error_without_a_message_is_told_by_its_type() -> None:
    @tool
    def silent() -> str:
        """Fails without a word."""
        raise ToolExecutionError()

    client = ScriptedChatClient([ScriptedChatClient.function_call("silent", {}), "ok"])
    await Agent(client=client, tools=[silent]).run("go")

    (result,) = _results(client)
    assert str(result.result).startswith("Error: tool 'silent' failed with ToolExecutionError")


@pytest.mark.parametrize("detailed", [False, True])
async def test_agents_made_by_a_client_honour_detailed_errors(detailed: bool) -> None:
    client = ScriptedChatClient([ScriptedChatClient.function_call("fetch", {"url": "x"}), "ok"])
    config = FunctionInvocationConfiguration(include_detailed_errors=detailed)
    await client.as_agent(tools=[fetch], function_invocation_configuration=config).run("go")

    (result,) = _results(client)
    assert ("upstream rejected x" in str(result.result)) is detailed


@pytest.mark.parametrize("detailed", [False, True])
async def test_function_invoking_clients_honour_detailed_errors(detailed: bool) -> None:
    invoking = use_function_invocation(ScriptedChatClient)
    client = invoking([ScriptedChatClient.function_call("fetch", {"url": "x"}), "ok"])
    client.function_invocation_configuration = FunctionInvocationConfiguration(  # pyright: ignore[reportAttributeAccessIssue]
        include_detailed_errors=detailed
    )
    await client.get_response("go", options={"tools": [fetch]})

    (result,) = _results(client)
    assert ("upstream rejected x" in str(result.result)) is detailed


async def test_the_tool_errors_guide_tells_what_the_model_reads() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "agents.md").read_text("utf-8")
    section = guide[guide.index("### Tool errors") : guide.index("### Tool approval")]
    (default_text,) = re.findall(r"```text\n(.*?)\n```", section, flags=re.DOTALL)
    (example,) = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    namespace: dict[str, Any] = {"__name__": "docs_agents"}
    exec(compile(example, "agents.md", "exec"), namespace)

    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("fetch", {"url": "x"}),
            ScriptedChatClient.function_call("book", {"room": "B2"}),
            "ok",
        ]
    )
    await Agent(client=client, tools=[fetch, namespace["book"]]).run("go")

    told = [
        str(content.result)
        for call in client.calls[1:]
        for message in call.messages[-1:]
        for content in message.contents
    ]
    assert told[0] == default_text
    documented = " ".join(section.split("The model then reads `")[1].split("`.")[0].split())
    assert told[1] == documented
