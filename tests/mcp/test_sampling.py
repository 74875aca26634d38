"""Sampling: servers reach the client's model only when allowed, and only within limits."""

from __future__ import annotations

import logging

import pytest

from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ToolExecutionError
from agentry.mcp import MCPTool, SamplingPolicy, SamplingRequest

from .conftest import basic_stdio

pytestmark = pytest.mark.timeout(60)

SECRET = "the launch code is 1234"


async def test_sampling_is_denied_without_a_sampling_client() -> None:
    async with basic_stdio() as server:
        # without a sampling client the client does not even offer sampling
        with pytest.raises(ToolExecutionError, match="sampling capability"):
            await server.call_tool("summarise", {"text": SECRET})


async def test_a_sampling_client_answers_within_the_token_cap() -> None:
    model = ScriptedChatClient(["A launch code."])
    async with basic_stdio(
        sampling_client=model, sampling_policy=SamplingPolicy(max_tokens=64)
    ) as server:
        result = await server.call_tool("summarise", {"text": SECRET})

    assert not result.is_error
    assert result.content[0].text == "A launch code."  # type: ignore[union-attr]
    (call,) = model.calls
    assert call.options.get("max_tokens") == 64  # the server asked for 5000
    assert [(m.role, m.text) for m in call.messages] == [
        ("system", "Summarise in one line."),
        ("user", SECRET),
    ]


async def summarise(server: MCPTool) -> str:
    """The summary, or "denied" when the client refused the server's sampling request."""
    try:
        result = await server.call_tool("summarise", {"text": SECRET})
    except ToolExecutionError as error:
        if "sampling request denied" not in str(error):
            raise
        return "denied"
    return "denied" if result.is_error else str(result.content[0].text)  # type: ignore[union-attr]


async def test_a_flood_of_sampling_requests_is_cut_by_the_rate_limit(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = ScriptedChatClient(["One.", "Two.", "Three."])
    policy = SamplingPolicy(max_requests=2, window_seconds=60)
    async with basic_stdio(sampling_client=model, sampling_policy=policy) as server:
        with caplog.at_level(logging.WARNING, logger="agentry.mcp"):
            results = [await summarise(server) for _ in range(5)]

    assert results == ["One.", "Two.", "denied", "denied", "denied"]
    assert len(model.calls) == 2
    denials = [r for r in caplog.records if "denied a sampling request" in r.getMessage()]
    assert len(denials) == 3
    assert all(SECRET not in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_an_approval_callback_decides_each_request(
    asynchronous: bool, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[SamplingRequest] = []

    def decide(request: SamplingRequest) -> bool:
        seen.append(request)
        return len(seen) == 1  # the first is approved, the rest are not

    async def decide_async(request: SamplingRequest) -> bool:
        return decide(request)

    model = ScriptedChatClient(["Approved answer."])
    policy = SamplingPolicy(approve=decide_async if asynchronous else decide)
    async with basic_stdio(sampling_client=model, sampling_policy=policy) as server:
        with caplog.at_level(logging.WARNING, logger="agentry.mcp"):
            first = await summarise(server)
            second = await summarise(server)

    assert (first, second) == ("Approved answer.", "denied")
    assert len(model.calls) == 1
    assert seen[0].server == "basic"
    assert seen[0].messages[0].text == SECRET
    assert seen[0].max_tokens == 5000
    assert any("not approved" in r.getMessage() for r in caplog.records)
    assert all(SECRET not in r.getMessage() for r in caplog.records)


async def test_sampling_and_its_limits_work_on_the_2025_protocol_too() -> None:
    model = ScriptedChatClient(["Short."])
    policy = SamplingPolicy(max_requests=1)
    async with basic_stdio(
        sampling_client=model, sampling_policy=policy, protocol_mode="legacy"
    ) as server:
        assert [await summarise(server) for _ in range(2)] == ["Short.", "denied"]


def test_a_policy_rejects_limits_that_cannot_work() -> None:
    with pytest.raises(ValueError, match="max_requests >= 1"):
        SamplingPolicy(max_requests=0)
