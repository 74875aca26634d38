"""`WorkflowViz`: a workflow's graph as Mermaid or Graphviz DOT text."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from agentry.workflows._edges import (
    EdgeGroup,
    FanInEdgeGroup,
    FanOutEdgeGroup,
    SwitchCaseEdgeGroup,
    SwitchCaseEdgeGroupDefault,
)
from agentry.workflows._workflow import Workflow

__all__ = ["WorkflowViz"]


class WorkflowViz:
    """Draws a workflow: executors as boxes (the start one marked), edges as arrows.

    Conditional and switch-case edges are dashed and labelled; a fan-in gets a join node
    its sources point to; selective fan-outs are dashed.

    Args:
        workflow: The workflow to draw.

    Example:
        >>> from agentry.workflows import WorkflowBuilder, executor
        >>> @executor
        ... async def only(text: str) -> None: ...
        >>> print(WorkflowViz(WorkflowBuilder(start_executor=only).build()).to_mermaid())
        flowchart TD
          n0["only (start)"]
    """

    def __init__(self, workflow: Workflow) -> None:
        self.workflow = workflow
        self._node_ids = {eid: f"n{i}" for i, eid in enumerate(workflow.executors)}

    def _edges(self) -> list[tuple[str, str, str | None, bool]]:
        """(source, target, label, dashed); targets may be fan-in join nodes."""
        lines: list[tuple[str, str, str | None, bool]] = []
        for index, group in enumerate(self.workflow.edge_groups):
            lines.extend(self._group_edges(index, group))
        return lines

    def _group_edges(self, index: int, group: EdgeGroup) -> list[tuple[str, str, str | None, bool]]:
        node = self._node_ids
        if isinstance(group, FanInEdgeGroup):
            join = f"join{index}"
            joined: list[tuple[str, str, str | None, bool]] = [
                (node[s], join, None, False) for s in group.source_ids
            ]
            return [*joined, (join, node[group.target_ids[0]], None, False)]
        if isinstance(group, SwitchCaseEdgeGroup):
            source = node[group.source_ids[0]]
            return [
                (
                    source,
                    node[case.target_id],
                    "default"
                    if isinstance(case, SwitchCaseEdgeGroupDefault)
                    else f"case {number + 1}",
                    True,
                )
                for number, case in enumerate(group.cases)
            ]
        if isinstance(group, FanOutEdgeGroup):
            dashed = group.selection_func is not None
            return [
                (node[e.source_id], node[e.target_id], "selected" if dashed else None, dashed)
                for e in group.edges
            ]
        return [
            (node[e.source_id], node[e.target_id], e.condition_name, e.condition is not None)
            for e in group.edges
        ]

    def _label(self, executor_id: str) -> str:
        start = " (start)" if executor_id == self.workflow.start_executor_id else ""
        return f"{executor_id}{start}"

    def _joins(self) -> list[str]:
        return [
            f"join{i}"
            for i, g in enumerate(self.workflow.edge_groups)
            if isinstance(g, FanInEdgeGroup)
        ]

    def to_mermaid(self) -> str:
        """The graph as a Mermaid flowchart."""
        lines = ["flowchart TD"]
        for executor_id, node in self._node_ids.items():
            lines.append(f'  {node}["{_mermaid_text(self._label(executor_id))}"]')
        lines.extend(f"  {join}((fan-in))" for join in self._joins())
        for source, target, label, dashed in self._edges():
            arrow = "-.->" if dashed else "-->"
            text = f"|{_mermaid_text(label)}|" if label else ""
            lines.append(f"  {source} {arrow}{text} {target}")
        return "\n".join(lines)

    def to_digraph(self) -> str:
        """The graph as Graphviz DOT text."""
        lines = [
            f'digraph "{_escape(self.workflow.name)}" {{',
            "  rankdir=TD;",
            '  node [shape=box, style="rounded"];',
        ]
        for executor_id, node in self._node_ids.items():
            extra = (
                ', style="rounded,filled", fillcolor=lightgreen'
                if executor_id == self.workflow.start_executor_id
                else ""
            )
            lines.append(f'  {node} [label="{_escape(self._label(executor_id))}"{extra}];')
        lines.extend(f'  {join} [label="fan-in", shape=ellipse];' for join in self._joins())
        for source, target, label, dashed in self._edges():
            attrs: list[str] = []
            if dashed:
                attrs.append("style=dashed")
            if label:
                attrs.append(f'label="{_escape(label)}"')
            suffix = f" [{', '.join(attrs)}]" if attrs else ""
            lines.append(f"  {source} -> {target}{suffix};")
        lines.append("}")
        return "\n".join(lines)

    def export(
        self, path: str | os.PathLike[str], *, format: Literal["mermaid", "dot"] | None = None
    ) -> Path:
        """Write the graph to `path` (`.mmd`/`.md` for Mermaid, `.dot`/`.gv` for DOT)."""
        target = Path(path)
        chosen = format or ("dot" if target.suffix in (".dot", ".gv") else "mermaid")
        text = self.to_digraph() if chosen == "dot" else self.to_mermaid()
        target.write_text(text + "\n", encoding="utf-8")
        return target


def _mermaid_text(text: str) -> str:
    return text.replace('"', "#quot;").replace("|", "#124;")


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
