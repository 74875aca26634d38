"""Trace an agent run with OpenTelemetry and print its spans as a tree.

Run: python examples/observability.py  (needs the `otel` extra)
"""

import asyncio

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.observability import configure_otel


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


def print_tree(spans: list[ReadableSpan]) -> None:
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in sorted(spans, key=lambda s: s.start_time or 0):
        children.setdefault(span.parent.span_id if span.parent else None, []).append(span)

    def show(parent: int | None, depth: int) -> None:
        for span in children.get(parent, []):
            attributes = span.attributes or {}
            tokens = attributes.get("gen_ai.usage.output_tokens")
            extra = f"  (output tokens: {tokens})" if tokens is not None else ""
            print(f"{'  ' * depth}{span.name}{extra}")
            show(span.context.span_id if span.context else None, depth + 1)

    show(None, 0)


async def main() -> None:
    exporter = InMemorySpanExporter()  # or configure_otel("console") / configure_otel("otlp")
    telemetry = configure_otel(exporter, metrics=None)
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("get_weather", {"city": "Paris"}),
            ScriptedChatClient.reply(
                "It is sunny in Paris.",
                usage_details={"input_token_count": 40, "output_token_count": 7},
            ),
        ],
        model="demo-model",
    )
    agent = Agent(client=client, tools=[get_weather], name="weather")
    print((await agent.run("What is the weather in Paris?")).text)
    telemetry.force_flush()
    print_tree(list(exporter.get_finished_spans()))
    telemetry.shutdown()


if __name__ == "__main__":
    asyncio.run(main())
