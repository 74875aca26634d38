"""`agentry workflow graph MODULE:OBJECT`: draw a workflow as Mermaid or Graphviz DOT.

The durable runs' actions (`status`, `send-response`) are in `_durable`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import Any

from agentry.cli._durable import add_workflow_actions
from agentry.cli._errors import CliError
from agentry.targets import load_target

__all__ = ["add_parser"]


def add_parser(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `workflow` command (and its `graph` subcommand) to the `agentry` parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "workflow", parents=parents, help="work with workflows", description="Work with workflows."
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    graph = actions.add_parser(
        "graph",
        parents=parents,
        help="print a workflow's graph as Mermaid or DOT",
        description="Print a workflow's graph (executors and edges) as Mermaid or Graphviz DOT.",
    )
    graph.add_argument("target", metavar="MODULE:OBJECT", help="the workflow to draw")
    graph.add_argument(
        "--format", choices=("mermaid", "dot"), default="mermaid", help="default: mermaid"
    )
    graph.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of stdout")
    graph.set_defaults(handler=_graph)
    add_workflow_actions(actions, parents)


def _graph(arguments: argparse.Namespace) -> int:
    try:
        workflows: Any = importlib.import_module("agentry.workflows")
        workflow_class: Any = workflows.Workflow
        viz_class: Any = workflows.WorkflowViz
    except (ImportError, AttributeError):
        raise CliError(
            "`agentry workflow graph` needs agentry.workflows (Workflow and WorkflowViz), "
            "which this installation of agentry does not have yet"
        ) from None
    workflow = load_target(arguments.target)
    if not isinstance(workflow, workflow_class):
        raise CliError(
            f"{arguments.target} is of type {type(workflow).__name__}, not a workflow; "
            "build one with agentry.workflows.WorkflowBuilder(...).build()"
        )
    viz: Any = viz_class(workflow)
    text: str = viz.to_mermaid() if arguments.format == "mermaid" else viz.to_digraph()
    if arguments.output:
        Path(arguments.output).write_text(text if text.endswith("\n") else text + "\n")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
