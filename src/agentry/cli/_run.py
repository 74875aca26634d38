"""`agentry run MODULE:OBJECT "prompt"`: run an agent or a workflow once, streaming."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from agentry.cli._errors import CliError
from agentry.cli._local_model import prepare_local_model
from agentry.cli._output import Printer, json_line
from agentry.targets import load_target

__all__ = ["add_parser", "is_workflow"]


def add_parser(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `run` command to the `agentry` parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "run",
        parents=parents,
        help="run an agent or workflow once, streaming its output",
        description="Run an agent or workflow once and stream what it produces. "
        "Answers go to stdout; tool activity and progress go to stderr.",
    )
    parser.add_argument("target", metavar="MODULE:OBJECT", help="the agent or workflow to run")
    parser.add_argument(
        "prompt", nargs="?", help="the input (default: everything on standard input)"
    )
    parser.add_argument(
        "--json", action="store_true", help="write one JSON object per line (for scripts)"
    )
    parser.set_defaults(handler=_run)


async def _run(arguments: argparse.Namespace) -> int:
    target = load_target(arguments.target)
    prompt: str = arguments.prompt if arguments.prompt is not None else _read_stdin()
    printer = Printer(sys.stdout, sys.stderr, json_mode=arguments.json)
    if is_workflow(target):
        return await _run_workflow(target, prompt, printer)
    if not callable(getattr(target, "run", None)):
        raise CliError(
            f"{arguments.target} is of type {type(target).__name__}, not an agent or a workflow "
            "(an object with a run method)"
        )
    await prepare_local_model(target, client_chosen_here=False)
    stream = target.run(prompt, stream=True)
    with printer.working():
        async for update in stream:
            printer.update(update)
    response = await stream.get_final_response()
    printer.response(response)
    pending = [
        f"{r.function_call.name} needs "
        + ("authorization" if r.type == "authorization_request" else "approval")
        for r in response.user_input_requests
        if r.function_call
    ]
    if pending:
        printer.note(
            f"the run stopped: {', '.join(pending)}; to answer, chat with "
            f"the agent: agentry chat --agent {arguments.target}"
        )
        return 1
    return 0


def _read_stdin() -> str:
    if sys.stdin.isatty():
        raise CliError('give a prompt: agentry run MODULE:OBJECT "your question"', exit_code=2)
    return sys.stdin.read().strip()


def is_workflow(target: object) -> bool:
    """Whether `target` is an `agentry.workflows.Workflow` (False when workflows are absent)."""
    if not type(target).__module__.startswith("agentry.workflows"):
        return False
    try:
        workflows: Any = importlib.import_module("agentry.workflows")
    except ImportError:
        return False
    workflow_class: Any = getattr(workflows, "Workflow", None)
    return workflow_class is not None and isinstance(target, workflow_class)


async def _run_workflow(workflow: Any, prompt: str, printer: Printer) -> int:
    stream = workflow.run(prompt, stream=True)
    with printer.working("running"):
        async for event in stream:
            printer.workflow_event(event)
    result = await stream.get_final_response()
    if printer.json_mode:
        outputs = list(result.get_outputs())
        printer.out.write(json_line({"type": "result", "outputs": outputs}) + "\n")
    return 0
