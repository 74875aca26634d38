import asyncio
import json
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

from agentry import (
    Agent,
    AgentContext,
    BaseAgent,
    ChatResponse,
    ChatResponseUpdate,
    Message,
    agent_middleware,
    tool,
)
from agentry.clients.scripted import ScriptedChatClient
from tests.observability.conftest import Telemetry

SECRET_PROMPT = "my card number is 4111-1111"
SECRET_ARGUMENT = "Atlantis-42"


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


@tool
def broken(city: str) -> str:
    """Always fails."""
    raise RuntimeError(f"cannot reach {city}")


def _weather_agent(*, answer: ChatResponse | str = "It is sunny.") -> Agent:
    client = ScriptedChatClient(
        [
            ChatResponse(
                messages=ScriptedChatClient.function_call(
                    "get_weather", {"city": SECRET_ARGUMENT}, call_id="call-1"
                ).messages,
                finish_reason="tool_calls",
                response_id="resp-1",
                usage_details={"input_token_count": 12, "output_token_count": 5},
            ),
            answer,
        ],
        model="weather-model",
    )
    return Agent(client=client, tools=[get_weather], name="forecaster", description="Weather")


def _parent_id(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent else None


def _span_id(span: ReadableSpan) -> int:
    assert span.context is not None
    return span.context.span_id


def _trace_id(span: ReadableSpan) -> int:
    assert span.context is not None
    return span.context.trace_id


def _all_attribute_text(spans: list[ReadableSpan]) -> str:
    return " ".join(f"{k}={v}" for s in spans for k, v in (s.attributes or {}).items())


@pytest.mark.parametrize("stream", [False, True])
async def test_agent_chat_and_tool_spans_form_one_tree(telemetry: Telemetry, stream: bool) -> None:
    agent = _weather_agent()
    if stream:
        async for _ in agent.run(SECRET_PROMPT, stream=True):
            pass
    else:
        await agent.run(SECRET_PROMPT)

    run = telemetry.one("invoke_agent forecaster")
    chats = telemetry.named("chat weather-model")
    tool_span = telemetry.one("execute_tool get_weather")
    assert len(chats) == 2
    assert run.parent is None
    assert all(_parent_id(s) == _span_id(run) for s in [*chats, tool_span])
    assert {_trace_id(s) for s in telemetry.finished()} == {_trace_id(run)}
    assert run.kind == SpanKind.INTERNAL
    assert chats[0].kind == SpanKind.CLIENT
    assert run.attributes is not None
    assert run.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert run.attributes["gen_ai.agent.name"] == "forecaster"
    assert run.attributes["gen_ai.agent.id"] == agent.id
    assert run.attributes["gen_ai.agent.description"] == "Weather"
    assert run.attributes["gen_ai.provider.name"] == "scripted"
    assert run.attributes["gen_ai.request.model"] == "weather-model"
    assert run.attributes["gen_ai.usage.input_tokens"] == 12
    first = chats[0].attributes
    assert first is not None
    assert first["gen_ai.operation.name"] == "chat"
    assert first["gen_ai.provider.name"] == "scripted"
    assert first["gen_ai.request.model"] == "weather-model"
    assert first["gen_ai.request.stream"] is stream
    assert first["gen_ai.response.id"] == "resp-1"
    assert first["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert first["gen_ai.usage.input_tokens"] == 12
    assert first["gen_ai.usage.output_tokens"] == 5
    tool_attributes = tool_span.attributes
    assert tool_attributes is not None
    assert tool_attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool_attributes["gen_ai.tool.name"] == "get_weather"
    assert tool_attributes["gen_ai.tool.call.id"] == "call-1"
    assert tool_attributes["gen_ai.tool.type"] == "function"
    assert tool_attributes["gen_ai.tool.description"] == "Get the weather for a city."
    # the tool ran between the two model calls
    assert chats[0].end_time is not None
    assert tool_span.start_time is not None
    assert chats[0].end_time <= tool_span.start_time


async def test_sensitive_content_is_absent_by_default(telemetry: Telemetry) -> None:
    await _weather_agent(answer="Sunny in Atlantis-42").run(SECRET_PROMPT)
    spans = telemetry.finished()
    assert len(spans) == 4
    text = _all_attribute_text(spans)
    assert SECRET_PROMPT not in text
    assert SECRET_ARGUMENT not in text
    for span in spans:
        assert span.attributes is not None
        assert not {
            "gen_ai.input.messages",
            "gen_ai.output.messages",
            "gen_ai.system_instructions",
            "gen_ai.tool.call.arguments",
            "gen_ai.tool.call.result",
        } & set(span.attributes)


async def test_sensitive_content_is_recorded_when_enabled(sensitive_telemetry: Telemetry) -> None:
    agent = _weather_agent()
    agent.instructions = "Answer about the weather."
    await agent.run(SECRET_PROMPT)

    run = sensitive_telemetry.one("invoke_agent forecaster").attributes
    assert run is not None
    assert json.loads(str(run["gen_ai.input.messages"])) == [
        {"role": "user", "parts": [{"type": "text", "content": SECRET_PROMPT}]}
    ]
    assert "Answer about the weather." in str(run["gen_ai.system_instructions"])
    output = json.loads(str(run["gen_ai.output.messages"]))
    assert output[-1]["parts"] == [{"type": "text", "content": "It is sunny."}]
    first_chat = sensitive_telemetry.named("chat weather-model")[0].attributes
    assert first_chat is not None
    (chat_output,) = json.loads(str(first_chat["gen_ai.output.messages"]))
    assert chat_output["finish_reason"] == "tool_calls"
    assert chat_output["parts"] == [
        {
            "type": "tool_call",
            "id": "call-1",
            "name": "get_weather",
            "arguments": {"city": SECRET_ARGUMENT},
        }
    ]
    tool_span = sensitive_telemetry.one("execute_tool get_weather").attributes
    assert tool_span is not None
    assert json.loads(str(tool_span["gen_ai.tool.call.arguments"])) == {"city": SECRET_ARGUMENT}
    assert tool_span["gen_ai.tool.call.result"] == f"Sunny in {SECRET_ARGUMENT}"


async def test_failing_tool_marks_its_span_and_the_run_goes_on(telemetry: Telemetry) -> None:
    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("broken", {"city": "Oslo"}), "Sorry."]
    )
    response = await Agent(client=client, tools=[broken]).run("Weather?")
    assert response.text == "Sorry."
    span = telemetry.one("execute_tool broken")
    assert span.status.status_code == StatusCode.ERROR
    assert span.attributes is not None
    assert span.attributes["error.type"] == "RuntimeError"
    # the message may hold arguments: only recorded with sensitive data on
    (event,) = span.events
    assert event.name == "exception"
    assert event.attributes is not None
    assert event.attributes["exception.type"] == "RuntimeError"
    assert "exception.message" not in event.attributes
    stacktrace = str(event.attributes["exception.stacktrace"])
    assert "in broken" in stacktrace
    assert stacktrace.endswith("RuntimeError (message hidden)\n")
    assert "Oslo" not in stacktrace
    assert telemetry.one("invoke_agent").status.status_code == StatusCode.UNSET


async def test_unknown_tool_is_an_error_on_the_tool_span(telemetry: Telemetry) -> None:
    client = ScriptedChatClient([ScriptedChatClient.function_call("nope", {}), "Done."])
    await Agent(client=client, tools=[get_weather]).run("Go")
    # the name is the model's own text: a fixed placeholder stands in for it
    span = telemetry.one("execute_tool (unknown tool)")
    assert span.attributes is not None
    assert span.attributes["gen_ai.tool.name"] == "(unknown tool)"
    assert span.attributes["error.type"] == "unknown_tool"
    assert span.status.status_code == StatusCode.ERROR


async def test_failing_model_call_fails_chat_and_agent_spans(
    sensitive_telemetry: Telemetry,
) -> None:
    client = ScriptedChatClient([ConnectionError("model unreachable")])
    agent = Agent(client=client, name="fragile")
    with pytest.raises(ConnectionError):
        await agent.run("Hi")
    chat = sensitive_telemetry.one("chat scripted")
    run = sensitive_telemetry.one("invoke_agent fragile")
    for span in (chat, run):
        assert span.status.status_code == StatusCode.ERROR
        assert span.attributes is not None
        assert span.attributes["error.type"] == "ConnectionError"
    assert [e.name for e in chat.events] == ["exception"]


async def test_concurrent_tool_calls_each_get_a_child_span(telemetry: Telemetry) -> None:
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_calls(
                [("get_weather", {"city": "Oslo"}, "a"), ("get_weather", {"city": "Rome"}, "b")]
            ),
            "Both sunny.",
        ]
    )
    await Agent(client=client, tools=[get_weather]).run("Weather?")
    run = telemetry.one("invoke_agent")
    tools = telemetry.named("execute_tool get_weather")
    assert sorted(str((s.attributes or {})["gen_ai.tool.call.id"]) for s in tools) == ["a", "b"]
    assert all(_parent_id(s) == _span_id(run) for s in tools)


async def test_direct_client_call_is_a_root_chat_span(telemetry: Telemetry) -> None:
    client = ScriptedChatClient(["Hi"], model="m1")
    await client.get_response("Hello", options={"model": "m2", "temperature": 0.2, "seed": 7})
    span = telemetry.one("chat m2")
    assert span.parent is None
    assert span.attributes is not None
    assert span.attributes["gen_ai.request.temperature"] == 0.2
    assert span.attributes["gen_ai.request.seed"] == 7
    assert span.attributes["gen_ai.response.model"] == "m1"


async def test_stream_stopped_early_still_ends_its_spans(telemetry: Telemetry) -> None:
    updates = [ChatResponseUpdate(role="assistant", contents=[f"{i} "]) for i in range(10)]
    agent = Agent(client=ScriptedChatClient([updates]), name="counter")
    stream = agent.run("Count", stream=True)
    async for update in stream:
        assert update.text == "0 "
        break
    await stream.aclose()
    assert telemetry.one("invoke_agent counter").end_time is not None
    # the model stream inside is closed by the event loop once the run lets go of it
    del stream
    for _ in range(100):
        if telemetry.named("chat scripted"):
            break
        await asyncio.sleep(0)
    assert telemetry.one("chat scripted").end_time is not None


async def test_runs_side_by_side_keep_separate_traces(telemetry: Telemetry) -> None:
    def agent(name: str) -> Agent:
        client = ScriptedChatClient(
            [ScriptedChatClient.function_call("get_weather", {"city": name}), "ok"], delay=0.01
        )
        return Agent(client=client, tools=[get_weather], name=name)

    await asyncio.gather(agent("one").run("go"), agent("two").run("go"))
    for name in ("one", "two"):
        run = telemetry.one(f"invoke_agent {name}")
        children = [s for s in telemetry.finished() if _parent_id(s) == _span_id(run)]
        assert sorted(s.name for s in children) == [
            "chat scripted",
            "chat scripted",
            "execute_tool get_weather",
        ]
        call_ids: list[Any] = [
            (s.attributes or {}).get("gen_ai.tool.call.id")
            for s in children
            if s.name.startswith("execute_tool")
        ]
        assert call_ids[0] is not None


async def test_metrics_record_tokens_and_durations(telemetry: Telemetry) -> None:
    await _weather_agent().run("Hi")
    tokens = telemetry.histogram_points("gen_ai.client.token.usage")
    by_type = {p.attributes["gen_ai.token.type"]: p for p in tokens}
    assert by_type["input"].sum == 12
    assert by_type["output"].sum == 5
    assert by_type["input"].attributes["gen_ai.request.model"] == "weather-model"
    durations = telemetry.histogram_points("gen_ai.client.operation.duration")
    counts = {p.attributes["gen_ai.operation.name"]: p.count for p in durations}
    assert counts == {"chat": 2, "execute_tool": 1, "invoke_agent": 1}
    assert telemetry.histogram_points("gen_ai.client.operation.time_to_first_chunk") == []


async def test_streamed_chat_records_time_to_first_chunk(telemetry: Telemetry) -> None:
    async for _ in _weather_agent().run("Hi", stream=True):
        pass
    (point,) = telemetry.histogram_points("gen_ai.client.operation.time_to_first_chunk")
    assert point.count == 2
    assert point.attributes["gen_ai.request.model"] == "weather-model"


async def test_nothing_is_recorded_when_instrumentation_is_off() -> None:
    from agentry.observability import is_instrumentation_enabled

    assert not is_instrumentation_enabled()
    # with the switch off, the core hands back its own objects, not traced wrappers
    # (retries off too: with them on, the source is their own wrapper)
    client = ScriptedChatClient(["Hi"], retry=None)
    stream = client.get_response([Message("user", ["Hi"])], stream=True)
    assert type(stream.source).__name__ == "async_generator"
    assert stream.source.__qualname__ == "ScriptedChatClient._inner_get_streaming_response"  # type: ignore[attr-defined]
    await stream.get_final_response()


async def test_custom_agents_and_agents_as_tools_are_traced(telemetry: Telemetry) -> None:
    class Echo(BaseAgent):
        async def run(self, messages: Any, *, session: Any = None, **kwargs: Any) -> str:
            return f"echo: {messages[-1].text}"

    echo = Echo(name="echo", description="Repeats")
    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("echo", {"task": "hi"}, call_id="e1"), "Done."]
    )
    boss = Agent(client=client, tools=[echo.as_tool()], name="boss")
    session = boss.create_session()
    assert (await boss.run("Delegate", session=session)).text == "Done."

    outer = telemetry.one("invoke_agent boss")
    tool_span = telemetry.one("execute_tool echo")
    inner = telemetry.one("invoke_agent echo")
    assert _parent_id(tool_span) == _span_id(outer)
    assert _parent_id(inner) == _span_id(tool_span)
    assert inner.attributes is not None
    assert inner.attributes["gen_ai.agent.description"] == "Repeats"
    assert "gen_ai.provider.name" not in inner.attributes  # a custom agent has no client
    assert (outer.attributes or {})["gen_ai.conversation.id"] == session.session_id


async def test_agent_middleware_runs_inside_the_agent_span(telemetry: Telemetry) -> None:
    from opentelemetry import trace

    seen: list[str] = []

    @agent_middleware
    async def note_span(context: AgentContext, call_next: Any) -> None:
        seen.append(getattr(trace.get_current_span(), "name", ""))
        await call_next()

    agent = Agent(client=ScriptedChatClient(["Hi"]), name="watched", middleware=[note_span])
    await agent.run("Hello")
    assert seen == ["invoke_agent watched"]


async def test_with_instrumentation_off_only_the_do_nothing_observer_runs() -> None:
    import sys
    from types import FrameType

    client = ScriptedChatClient()
    agent = Agent(client=client, tools=[get_weather])
    called: set[str] = set()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            called.add(frame.f_code.co_filename)

    from agentry.workflows import WorkflowBuilder, WorkflowContext, executor

    @executor
    async def ask(question: str, ctx: WorkflowContext[None, str]) -> None:
        await ctx.yield_output((await agent.run(question)).text)

    workflow = WorkflowBuilder(start_executor=ask).build()
    client.add(ScriptedChatClient.function_call("get_weather", {"city": "Oslo"}), "Sunny.")
    sys.setprofile(profile)
    try:
        await agent.run("Weather?")
        client.add("Streaming.")
        async for _ in agent.run("Again", stream=True):
            pass
        client.add("From a workflow.")
        assert (await workflow.run("Once more")).get_outputs() == ["From a workflow."]
    finally:
        sys.setprofile(None)
    assert any("agentry" in name for name in called)  # the profile did see the run
    telemetry_code = [
        name
        for name in called
        if "src/agentry/observability" in name.replace("\\", "/") or "opentelemetry" in name
    ]
    assert [name.replace("\\", "/").rsplit("/", 1)[-1] for name in telemetry_code] == [
        "_observer.py"
    ]
