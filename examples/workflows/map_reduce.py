"""Map-reduce with a fan-out and a fan-in: count words in chunks of text, then add them up.

The splitter sends one chunk to each mapper (fan-out); the mappers run at the same time in
one superstep; the reducer receives the list of all their counts (fan-in) and yields the
totals.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass

from typing_extensions import Never

from agentry.workflows import (
    Executor,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowViz,
    executor,
    handler,
)

TEXT = """the quick brown fox jumps over the lazy dog
the dog sleeps and the fox runs
a quick fox is a happy fox"""


@dataclass
class Chunk:
    mapper: str
    lines: list[str]


@dataclass
class WordCounts:
    mapper: str
    counts: dict[str, int]


class Mapper(Executor):
    @handler
    async def count(self, chunk: Chunk, ctx: WorkflowContext[WordCounts]) -> None:
        words = Counter(word for line in chunk.lines for word in line.split())
        await ctx.send_message(WordCounts(self.id, dict(words)))


def build(mapper_count: int = 3) -> Workflow:
    mappers = [Mapper(id=f"mapper{i}") for i in range(mapper_count)]

    @executor(id="split")
    async def split(text: str, ctx: WorkflowContext[Chunk]) -> None:
        lines = text.splitlines()
        for index, mapper in enumerate(mappers):
            # Each mapper gets every n-th line; the target_id picks the mapper.
            await ctx.send_message(
                Chunk(mapper.id, lines[index::mapper_count]), target_id=mapper.id
            )

    @executor(id="reduce")
    async def reduce(parts: list[WordCounts], ctx: WorkflowContext[Never, dict[str, int]]) -> None:
        total: Counter[str] = Counter()
        for part in parts:
            total.update(part.counts)
        await ctx.yield_output(dict(total.most_common(3)))

    return (
        WorkflowBuilder(name="word-count", start_executor=split)
        .add_fan_out_edges(split, mappers)
        .add_fan_in_edges(mappers, reduce)
        .build()
    )


async def main() -> dict[str, int]:
    workflow = build()
    print(WorkflowViz(workflow).to_mermaid())
    async for event in workflow.run(TEXT, stream=True):
        if event.type == "superstep_started":
            print(f"-- superstep {event.iteration}")
        elif event.type == "executor_invoked":
            print(f"   {event.executor_id}")
    result = await workflow.run(TEXT)
    (top,) = result.get_outputs()
    print("top words:", ", ".join(f"{word}={count}" for word, count in top.items()))
    return top


if __name__ == "__main__":
    asyncio.run(main())
