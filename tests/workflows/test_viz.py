from __future__ import annotations

from pathlib import Path

from typing_extensions import Never

from agentry.workflows import (
    Case,
    Default,
    FunctionExecutor,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowViz,
    executor,
)


def stage(name: str) -> FunctionExecutor:
    async def forward(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send_message(n)

    return executor(forward, id=name)


def is_big(n: int) -> bool:
    return n > 10


def graph() -> Workflow:
    start, router, big, small = stage("start"), stage("router"), stage("big"), stage("small")
    a, b, picked = stage("a"), stage("b"), stage("picked")

    @executor
    async def join(values: list[int], ctx: WorkflowContext[Never, int]) -> None:
        pass

    return (
        WorkflowBuilder(name='demo "graph"', start_executor=start)
        .add_edge(start, router, condition=is_big)
        .add_switch_case_edge_group(router, [Case(is_big, big), Default(small)])
        .add_fan_out_edges(big, [a, b])
        .add_multi_selection_edge_group(small, [picked], lambda n, ids: ids)
        .add_fan_in_edges([a, b], join)
        .build()
    )


def test_mermaid_shows_every_edge_kind() -> None:
    text = WorkflowViz(graph()).to_mermaid()
    assert text.splitlines() == [
        "flowchart TD",
        '  n0["start (start)"]',
        '  n1["router"]',
        '  n2["big"]',
        '  n3["small"]',
        '  n4["a"]',
        '  n5["b"]',
        '  n6["picked"]',
        '  n7["join"]',
        "  join4((fan-in))",
        "  n0 -.->|is_big| n1",
        "  n1 -.->|case 1| n2",
        "  n1 -.->|default| n3",
        "  n2 --> n4",
        "  n2 --> n5",
        "  n3 -.->|selected| n6",
        "  n4 --> join4",
        "  n5 --> join4",
        "  join4 --> n7",
    ]


def test_dot_shows_every_edge_kind_and_escapes_names() -> None:
    text = WorkflowViz(graph()).to_digraph()
    lines = text.splitlines()
    assert lines[0] == 'digraph "demo \\"graph\\"" {'
    assert '  n0 [label="start (start)", style="rounded,filled", fillcolor=lightgreen];' in lines
    assert '  join4 [label="fan-in", shape=ellipse];' in lines
    assert '  n0 -> n1 [style=dashed, label="is_big"];' in lines
    assert '  n1 -> n3 [style=dashed, label="default"];' in lines
    assert "  n2 -> n4;" in lines
    assert "  join4 -> n7;" in lines
    assert lines[-1] == "}"


def test_export_picks_the_format_from_the_suffix(tmp_path: Path) -> None:
    viz = WorkflowViz(graph())
    assert viz.export(tmp_path / "g.dot").read_text().startswith("digraph")
    assert viz.export(tmp_path / "g.mmd").read_text().startswith("flowchart TD")
