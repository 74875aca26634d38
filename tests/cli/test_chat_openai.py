from typing import Any

from agentry.testing import Exchange, ReplayServer
from tests.cli.conftest import Agentry


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-cli",
        "object": "chat.completion.chunk",
        "created": 1763800000,
        "model": "served-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def test_chat_talks_to_an_openai_compatible_server_when_its_url_is_set(
    agentry: Agentry,
) -> None:
    stream = Exchange(
        method="POST",
        path="/v1/chat/completions",
        sse=[
            _chunk({"role": "assistant", "content": "Hello"}),
            _chunk({"content": " from the server."}),
            _chunk({}, finish_reason="stop"),
        ],
        done=True,
    )
    with ReplayServer([stream]) as server:
        result = agentry(
            "--otel",
            "console",
            "chat",
            "--model",
            "served-model",
            "--instructions",
            "Be kind.",
            stdin="Hi there\n",
            env={"OPENAI_BASE_URL": server.url + "/v1", "OPENAI_API_KEY": "test-key"},
        )
        bodies = server.bodies
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello from the server.\n"
    (body,) = bodies
    assert body["model"] == "served-model"
    assert body["stream"] is True
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "Hi there" in str(body["messages"][-1]["content"])
    assert '"name": "chat served-model"' in result.stderr
    assert '"gen_ai.provider.name": "openai"' in result.stderr
