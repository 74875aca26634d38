from agentry import ChatResponse, tool, use_function_invocation
from agentry.clients.scripted import ScriptedChatClient

ToolCallingClient = use_function_invocation(ScriptedChatClient)


@tool
def double(n: int) -> int:
    """Double a number."""
    return 2 * n


def _client() -> ScriptedChatClient:
    return ToolCallingClient([ScriptedChatClient.function_call("double", {"n": 21}), "42"])


async def test_direct_calls_run_the_tools_the_model_asks_for() -> None:
    client = _client()
    response = await client.get_response("double 21", options={"tools": [double]})
    assert isinstance(response, ChatResponse)
    assert [m.role for m in response.messages] == ["assistant", "tool", "assistant"]
    assert response.messages[1].contents[0].result == 42
    assert response.text == "42"
    assert len(client.calls) == 2


async def test_streaming_direct_calls_run_tools_too() -> None:
    client = _client()
    stream = client.get_response("double 21", stream=True, options={"tools": [double]})
    roles = [u.role async for u in stream]
    assert "tool" in roles
    assert (await stream.get_final_response()).text == "42"


async def test_without_tools_it_is_a_plain_call() -> None:
    client = ToolCallingClient(["hi"])
    assert (await client.get_response("hello")).text == "hi"
