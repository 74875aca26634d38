import pytest

from agentry import ChatOptions, ChatResponse, ChatResponseUpdate, Message
from agentry.clients.scripted import ScriptedChatClient, ScriptItem
from agentry.errors import ScriptExhaustedError


def _now(messages: list[Message], options: ChatOptions) -> str:
    return f"sync saw {messages[-1].text}"


async def _later(messages: list[Message], options: ChatOptions) -> str:
    return f"async saw {messages[-1].text}"


def _script() -> list[ScriptItem]:
    return [
        ScriptedChatClient.reply("a response"),
        Message("assistant", ["a message"]),
        "a text",
        [ChatResponseUpdate(role="assistant", contents=["up", "dates"])],
        _now,
        _later,
        ValueError("scripted failure"),
    ]


@pytest.mark.parametrize("delay", [0.0, 0.001])
@pytest.mark.parametrize("stream", [False, True])
async def test_every_kind_of_scripted_item_answers_in_order(stream: bool, delay: float) -> None:
    client = ScriptedChatClient(_script(), delay=delay)

    async def ask(text: str) -> ChatResponse:
        if stream:
            return await client.get_response(text, stream=True).get_final_response()
        return await client.get_response(text)

    answers = [(await ask(f"q{i}")).text for i in range(6)]
    assert answers == [
        "a response",
        "a message",
        "a text",
        "updates",
        "sync saw q4",
        "async saw q5",
    ]
    with pytest.raises(ValueError, match="scripted failure"):
        await ask("q6")
    with pytest.raises(ScriptExhaustedError, match="no response left for call 8"):
        await ask("q7")
    assert [call.stream for call in client.calls] == [stream] * 8
