"""`agentry worker` and `agentry workflow status|send-response`: durable runs from the shell.

`worker MODULE:RUNTIME` launches a `DurableRuntime` (the app's, with its workflows
registered) and runs workflows until stopped. The `workflow` actions read a run and answer
its requests from any process, without running workflows.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from typing import TYPE_CHECKING, Any, cast

from agentry.cli._errors import CliError
from agentry.targets import load_target
from agentry.types import Content

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agentry.durable import DurableAgentRun, DurableRun, DurableRuntime
    from agentry.workflows import WorkflowEvent

__all__ = ["APP_ENV", "add_worker_parser", "add_workflow_actions"]

APP_ENV = "AGENTRY_DURABLE_APP"
"""The environment variable naming the app's runtime (`MODULE:RUNTIME`) when `--app` is not
given."""


def add_worker_parser(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `worker` command to the `agentry` parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "worker",
        parents=parents,
        help="run durable workflows until stopped",
        description="Launch a durable runtime: run the workflows it starts or finds queued, "
        "and resume the runs this worker left unfinished. Ctrl-C or SIGTERM stops it; "
        "its runs stay stored and resume at the next start.",
    )
    parser.add_argument(
        "app", metavar="MODULE:RUNTIME", help="a DurableRuntime with the workflows registered"
    )
    parser.add_argument(
        "--worker-id", help="this worker's id (a restarted worker resumes the runs of its id)"
    )
    parser.set_defaults(handler=_worker)


def add_workflow_actions(actions: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add `status` and `send-response` to the `workflow` command."""
    app = argparse.ArgumentParser(add_help=False)
    app.add_argument(
        "--app",
        metavar="MODULE:RUNTIME",
        default=os.environ.get(APP_ENV),
        help=f"the app's DurableRuntime (default: ${APP_ENV})",
    )
    status = actions.add_parser(
        "status",
        parents=[*parents, app],
        help="show a durable run's status and pending requests",
        description="Show a durable run's status, the requests it waits on, and its output "
        "once finished.",
    )
    status.add_argument("run_id", metavar="RUN_ID")
    status.set_defaults(handler=_status)
    respond = actions.add_parser(
        "send-response",
        parents=[*parents, app],
        help="answer a request a durable run waits on",
        description="Answer a request a durable run waits on; the run goes on on its worker. "
        'ANSWER is JSON (true, 3, {"approved": true}), or text when it is not JSON.',
    )
    respond.add_argument("run_id", metavar="RUN_ID")
    respond.add_argument("answer", metavar="ANSWER")
    respond.add_argument(
        "--request-id", help="the request to answer (needed when the run waits on several)"
    )
    respond.set_defaults(handler=_send_response)


def _load_runtime(spec: str | None) -> DurableRuntime:
    if not spec:
        raise CliError(
            f"name the app's runtime with --app MODULE:RUNTIME (or set ${APP_ENV})", exit_code=2
        )
    try:
        from agentry.durable import DurableRuntime
    except ImportError as error:
        raise CliError(str(error)) from None
    runtime = load_target(spec)
    if not isinstance(runtime, DurableRuntime):
        raise CliError(
            f"{spec} is a {type(runtime).__name__}, not a DurableRuntime; point at the "
            "runtime your workflows are registered with"
        )
    return runtime


async def _worker(arguments: argparse.Namespace) -> int:
    runtime = _load_runtime(arguments.app)
    if arguments.worker_id:
        runtime.worker_id = arguments.worker_id
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # Without loop signal handling (Windows), Ctrl-C still stops the worker.
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    async with runtime:
        sys.stderr.write(
            f"agentry worker {runtime.worker_id or 'local'}: running "
            f"{', '.join(runtime.workflow_names) or 'no workflows'} on "
            f"{runtime.safe_database_url}; Ctrl-C stops it\n"
        )
        sys.stderr.flush()
        await stop.wait()
    return 0


async def _status(arguments: argparse.Namespace) -> int:
    runtime = _load_runtime(arguments.app)
    try:
        run = await runtime.find(arguments.run_id)
        status = await run.status()
        print(f"run {run.run_id}: {status}")
        for request in await run.pending_requests():
            print(_describe(request))
        if status == "SUCCESS":
            for output in await _outputs(run):
                print(f"output: {_text(output)}")
    finally:
        runtime.shutdown()
    return 0


async def _outputs(run: DurableRun | DurableAgentRun) -> list[object]:
    from agentry.durable import DurableRun

    if isinstance(run, DurableRun):
        return (await run.result()).get_outputs()
    return [(await run.result()).text]


async def _send_response(arguments: argparse.Namespace) -> int:
    runtime = _load_runtime(arguments.app)
    try:
        run = await runtime.find(arguments.run_id)
        pending = await run.pending_requests()
        request = _pick(pending, arguments.request_id, arguments.run_id)
        request_id = str(_request_id(request))
        if isinstance(request, Content):
            await cast("DurableAgentRun", run).send_response(
                request_id, parse_approval(arguments.answer)
            )
        else:
            answer = parse_answer(arguments.answer, request.response_type)
            await cast("DurableRun", run).send_response(request_id, answer)
        sys.stderr.write(f"answered {request_id} of run {run.run_id}\n")
    finally:
        runtime.shutdown()
    return 0


def _request_id(request: WorkflowEvent[object] | Content) -> str | None:
    return request.id if isinstance(request, Content) else request.request_id


def _pick(
    pending: Sequence[WorkflowEvent[object] | Content], request_id: str | None, run_id: str
) -> WorkflowEvent[object] | Content:
    if request_id is not None:
        for request in pending:
            if _request_id(request) == request_id:
                return request
    elif len(pending) == 1:
        return pending[0]
    waiting = "\n".join(_describe(r) for r in pending) or "none"
    if request_id is not None:
        raise CliError(
            f"run {run_id} does not wait on a request {request_id!r} (answered already, or "
            f"never asked); it waits on:\n{waiting}"
        )
    raise CliError(
        f"run {run_id} waits on {len(pending)} requests; pick one with --request-id:\n{waiting}"
        if pending
        else f"run {run_id} waits on no request"
    )


def parse_answer(text: str, response_type: object) -> Any:
    """The answer `text` means, as a `response_type`: JSON (text that is not JSON is a
    string), checked strictly and converted by pydantic (a JSON object becomes a dataclass
    or a model; `"yes"` is not a bool).

    Raises:
        CliError: The answer does not fit the type.
    """
    from pydantic import TypeAdapter, ValidationError

    try:
        json.loads(text)
        document = text
    except ValueError:
        document = json.dumps(text)
    try:
        adapter: TypeAdapter[object] = TypeAdapter(cast("Any", response_type))
        return adapter.validate_json(document, strict=True)
    except ValidationError as error:
        raise CliError(
            f"the answer {text!r} does not fit the request's type: {error.errors()[0]['msg']}"
        ) from None


def parse_approval(text: str) -> bool:
    """The answer to a tool approval: `true` or `approve` approves, `false` or `reject`
    rejects.

    Raises:
        CliError: The answer is none of these.
    """
    words = {"true": True, "approve": True, "false": False, "reject": False}
    approved = words.get(text.strip().lower())
    if approved is None:
        raise CliError(
            f"the answer {text!r} does not fit a tool approval: answer true (or approve) to "
            "let the call run, false (or reject) to refuse it"
        )
    return approved


def _describe(request: WorkflowEvent[object] | Content) -> str:
    if isinstance(request, Content):
        call = request.function_call
        name = call.name if call is not None else "a tool"
        arguments = call.arguments if call is not None else None
        return (
            f"request {request.id}: approve the call {name}({_text(arguments or '')}) "
            "(answer: true to approve, false to reject)"
        )
    expected = getattr(request.response_type, "__name__", repr(request.response_type))
    return (
        f"request {request.request_id} from {request.source_executor_id}: "
        f"{_text(request.data)} (answer: {expected})"
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else repr(value)
