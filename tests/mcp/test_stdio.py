"""MCPStdioTool against a real server process: tools, agents, reloads, prompts, faults."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from agentry import Agent, Content, FunctionInvocationContext, Message
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ToolExecutionError
from agentry.mcp import DEFAULT_REQUEST_TIMEOUT, MCPConnectionError, MCPStdioTool

from .conftest import BASIC, basic_stdio

pytestmark = pytest.mark.timeout(60)


async def test_the_servers_tools_become_function_tools() -> None:
    async with basic_stdio() as server:
        names = [f.name for f in server.functions]
        add = next(f for f in server.functions if f.name == "add")

        assert {"add", "echo_arguments", "fail", "summarise"} <= set(names)
        assert add.description == "Add two numbers."
        assert add.parameters()["required"] == ["a", "b"]
        assert await add.invoke(arguments={"a": 2, "b": 40}) == "42"


async def test_an_agent_calls_a_remote_tool_and_answers_with_its_result() -> None:
    model = ScriptedChatClient(
        [ScriptedChatClient.function_call("add", {"a": 19, "b": 23}), "19 + 23 = 42."]
    )
    server = basic_stdio()
    agent = Agent(client=model, tools=[server])
    try:
        response = await agent.run("What is 19 + 23?")  # connects on first use
    finally:
        await server.close()

    assert response.text == "19 + 23 = 42."
    assert "add" in model.calls[0].tool_names
    (result,) = [
        c for m in model.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    assert result.result == "42"


async def test_allowed_tools_and_a_prefix_choose_and_name_the_tools() -> None:
    async with basic_stdio(allowed_tools=["add"], tool_name_prefix="math_") as server:
        assert [f.name for f in server.functions] == ["math_add"]
        assert await server.functions[0].invoke(arguments={"a": 1, "b": 1}) == "2"


async def test_approval_mode_by_tool_name() -> None:
    approvals = {"always_require_approval": ["fail"], "never_require_approval": ["add"]}
    async with basic_stdio(approval_mode=approvals) as server:
        modes = {f.name: f.approval_mode for f in server.functions}

    assert modes["fail"] == "always_require"
    assert modes["add"] == modes["echo_arguments"] == "never_require"


async def test_a_remote_error_reaches_the_model_as_an_error_result() -> None:
    async with basic_stdio() as server:
        fail = next(f for f in server.functions if f.name == "fail")
        assert (await fail.invoke(arguments={"reason": "no"})).startswith("Error: ")


async def test_a_changed_tool_list_is_loaded_again() -> None:
    async with basic_stdio() as server:
        assert "multiply" not in [f.name for f in server.functions]
        add_tool = next(f for f in server.functions if f.name == "add_tool")
        await add_tool.invoke(arguments={})

        for _ in range(100):  # the change notice arrives on its own
            names = [f.name for f in await server.load_tools()]
            if "multiply" in names:
                break
            await _tick()

        multiply = next(f for f in server.functions if f.name == "multiply")
        assert await multiply.invoke(arguments={"a": 6, "b": 7}) == "42"


async def test_the_argument_allowlist_holds_after_a_reload() -> None:
    async with basic_stdio(
        additional_tool_argument_names={"echo_arguments": ["options"]}
    ) as server:
        add_tool = next(f for f in server.functions if f.name == "add_tool")
        await add_tool.invoke(arguments={})
        for _ in range(100):
            if "multiply" in [f.name for f in await server.load_tools()]:
                break
            await _tick()
        echo = next(f for f in server.functions if f.name == "echo_arguments")

        arguments = {"text": "hi", "context": "model's"}
        context = FunctionInvocationContext(
            function=echo,
            arguments=arguments,
            kwargs={"options": {"temperature": 0}, "conversation_id": "c1", "session": "s1"},
        )
        sent = json.loads(await echo.invoke(arguments=arguments, context=context))

    # `context` is declared; `options` is opted in; `session` is declared but a framework
    # name; `conversation_id` is not declared
    assert sent == {
        "context": "model's",
        "options": {"temperature": 0},
        "session": "",
        "text": "hi",
    }


async def test_prompts_become_messages() -> None:
    async with basic_stdio() as server:
        assert await server.list_prompts() == ["review"]
        messages = await server.get_prompt("review", {"code": "x = 1"})

    assert [(m.role, m.text) for m in messages] == [("user", "Please review this code:\nx = 1")]


async def test_resources_are_readable_directly_and_through_a_tool() -> None:
    model = ScriptedChatClient(
        [ScriptedChatClient.function_call("read_resource", {"uri": "notes://today"}), "Done."]
    )
    async with basic_stdio(resource_tool=True) as server:
        assert await server.list_resources() == ["notes://today"]
        assert await server.read_resource("notes://today") == "Buy bread."
        await Agent(client=model, tools=[server]).run("What are today's notes?")

    (result,) = [
        c for m in model.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    assert result.result == "Buy bread."


async def test_a_server_that_dies_mid_call_fails_the_call_and_the_next_use_reconnects() -> None:
    async with basic_stdio() as server:
        die = next(f for f in server.functions if f.name == "die")
        with pytest.raises(MCPConnectionError, match="broke during the tool 'die'"):
            await die.invoke(arguments={})
        assert not server.is_connected

        add = next(f for f in server.functions if f.name == "add")
        assert await add.invoke(arguments={"a": 1, "b": 2}) == "3"
        assert server.is_connected


async def test_a_call_broken_with_an_old_connection_leaves_the_new_one_open() -> None:
    async with basic_stdio() as server:
        slow = asyncio.ensure_future(server.call_tool("sleep", {"seconds": 5}))
        await asyncio.sleep(0.5)  # the call is in flight
        await server.reconnect()  # ends the connection the call was made on
        with pytest.raises(MCPConnectionError, match="broke during the tool 'sleep'"):
            await slow
        assert server.is_connected  # the failed call closed nothing of the new connection
        result = await server.call_tool("add", {"a": 1, "b": 1})

    assert result.content[0].text == "2"  # type: ignore[union-attr]


async def test_an_agent_sees_a_dead_server_as_a_failed_tool_call() -> None:
    model = ScriptedChatClient([ScriptedChatClient.function_call("die", {}), "It failed."])
    async with basic_stdio() as server:
        response = await Agent(client=model, tools=[server]).run("Run die.")

    assert response.text == "It failed."
    (result,) = [
        c for m in model.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    assert str(result.result).startswith("Error: tool 'die' failed")


async def test_a_server_that_cannot_start_is_a_clear_error() -> None:
    server = MCPStdioTool("missing", sys.executable, ["-c", "import sys; sys.exit(4)"])
    with pytest.raises(MCPConnectionError, match="cannot connect to MCP server 'missing'"):
        await server.connect()


async def test_a_slow_call_times_out_with_a_clear_error() -> None:
    async with basic_stdio(request_timeout=0.5) as server:
        with pytest.raises(ToolExecutionError, match="did not answer the tool 'sleep' in time"):
            await server.call_tool("sleep", {"seconds": 5})
        assert await server.call_tool("add", {"a": 1, "b": 1}) is not None


def test_requests_are_bounded_unless_told_to_wait_forever() -> None:
    bounded = MCPStdioTool("basic", sys.executable, [BASIC])
    unbounded = MCPStdioTool("basic", sys.executable, [BASIC], request_timeout=None)

    assert bounded.request_timeout == DEFAULT_REQUEST_TIMEOUT == 60
    assert unbounded.request_timeout is None


async def test_a_prompt_can_open_a_conversation() -> None:
    model = ScriptedChatClient(["Looks fine."])
    async with basic_stdio() as server:
        prompt = await server.get_prompt("review", {"code": "print(1)"})
    response = await Agent(client=model).run([*prompt, Message("user", ["Be brief."])])

    assert response.text == "Looks fine."
    assert model.calls[0].messages[0].contents == [
        Content.from_text("Please review this code:\nprint(1)")
    ]


async def _tick() -> None:
    import asyncio

    await asyncio.sleep(0.05)


async def test_an_agent_used_as_a_context_manager_connects_and_closes_its_mcp_tools() -> None:
    server = basic_stdio()
    model = ScriptedChatClient([ScriptedChatClient.function_call("add", {"a": 1, "b": 2}), "3."])
    async with Agent(client=model, tools=[server]) as agent:
        assert server.is_connected
        response = await agent.run("1 + 2?")

    assert response.text == "3."
    assert not server.is_connected


async def test_when_one_tool_cannot_connect_the_agent_closes_those_it_connected() -> None:
    server = basic_stdio()
    missing = MCPStdioTool("missing", "/nonexistent/mcp-server")
    with pytest.raises(MCPConnectionError, match="cannot connect to MCP server 'missing'"):
        async with Agent(client=ScriptedChatClient([]), tools=[server, missing]):
            pass

    assert not server.is_connected


async def test_function_invocation_kwargs_reach_the_server_only_by_allowed_names() -> None:
    model = ScriptedChatClient(
        [ScriptedChatClient.function_call("echo_arguments", {"text": "hi"}), "done"]
    )
    async with basic_stdio(
        additional_tool_argument_names={"echo_arguments": ["options"]}
    ) as server:
        agent = Agent(client=model, tools=[server])
        response = await agent.run(
            "echo",
            function_invocation_kwargs={
                "options": {"temperature": 0},
                "context": "from the run",
                "session": "s1",
                "tenant": "t1",
            },
        )

    sent = json.loads(response.messages[1].contents[0].result)
    # `options` is opted in; `context` is declared; `session` is declared but a framework
    # name; `tenant` is neither declared nor opted in
    assert sent == {
        "context": "from the run",
        "options": {"temperature": 0},
        "session": "",
        "text": "hi",
    }


@pytest.mark.parametrize("method", ["call_tool", "call_tool_as_task"])
async def test_a_direct_call_is_filtered_by_the_same_allowlist(method: str) -> None:
    async with basic_stdio(
        additional_tool_argument_names={"echo_arguments": ["options"]}
    ) as server:
        call = getattr(server, method)
        result = await call(
            "echo_arguments",
            {
                "text": "hi",
                "options": {"temperature": 0},  # opted in
                "session": "s1",  # declared, but a framework name
                "conversation_id": "c1",  # not declared
                "_meta": {"trace": "t1"},  # metadata, never an argument
            },
        )

    assert not result.is_error
    assert json.loads(result.content[0].text) == {
        "context": "",
        "options": {"temperature": 0},
        "session": "",
        "text": "hi",
    }


async def test_a_bare_string_of_extra_names_opts_in_that_one_name() -> None:
    async with basic_stdio(additional_tool_argument_names={"echo_arguments": "session"}) as server:
        result = await server.call_tool("echo_arguments", {"text": "hi", "session": "s1"})

    assert json.loads(result.content[0].text)["session"] == "s1"  # type: ignore[union-attr]
