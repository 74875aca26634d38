"""`agentry chat`: an interactive conversation, streamed, over standard input and output."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import sys
import threading
from typing import Any

from agentry.cli._clients import CLIENT_CHOICES, make_client
from agentry.cli._errors import CliError
from agentry.cli._local_model import prepare_local_model
from agentry.cli._output import Printer, json_line
from agentry.targets import load_target

__all__ = ["add_parser"]

_HELP = "In the chat, /reset starts a new conversation and /exit (or the end of input) quits"


def add_parser(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `chat` command to the `agentry` parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "chat",
        parents=parents,
        help="chat with a model or an agent",
        description="Chat line by line; answers stream as they are generated. "
        "By default the model is an OpenAI-compatible server when OPENAI_BASE_URL or "
        "OPENAI_API_KEY is set, else the embedded local model. " + _HELP + ".",
    )
    parser.add_argument(
        "--client",
        default="auto",
        metavar="CLIENT",
        help=f"which model to talk to: {', '.join(CLIENT_CHOICES)}, or PROVIDER:MODEL for "
        "a named OpenAI-compatible server, such as ollama:qwen2.5 (default: auto)",
    )
    parser.add_argument("--model", help="the model name for the client")
    parser.add_argument(
        "--script", metavar="FILE.json", help="answers for --client scripted, in order"
    )
    parser.add_argument(
        "--agent",
        metavar="MODULE:OBJECT",
        help="chat with this agent instead (its own client, tools and instructions)",
    )
    parser.add_argument("--instructions", help="system instructions for the conversation")
    parser.add_argument(
        "--json", action="store_true", help="write one JSON object per line (for scripts)"
    )
    parser.set_defaults(handler=_chat)


async def _chat(arguments: argparse.Namespace) -> int:
    agent = _agent(arguments)
    await prepare_local_model(agent, client_chosen_here=not arguments.agent)
    printer = Printer(sys.stdout, sys.stderr, json_mode=arguments.json)
    interactive = sys.stdin.isatty()
    if interactive:
        printer.note(f"agentry chat. {_HELP}.")
    session = agent.create_session()
    while True:
        line = await _read_line("you> " if interactive else None)
        if line is None:
            break
        text = line.strip()
        if not text:
            continue
        if text in ("/exit", "/quit"):
            break
        if text == "/reset":
            session = agent.create_session()
            printer.note("(new conversation)")
            continue
        if text.startswith("/"):
            printer.note(f"unknown command {text.split()[0]!r}. {_HELP}.")
            continue
        response = await _turn(agent, text, session, printer)
        while response.user_input_requests:
            from agentry.types import Message

            answers = [
                await _answer(request, interactive) for request in response.user_input_requests
            ]
            response = await _turn(agent, Message("user", answers), session, printer)
    return 0


async def _turn(agent: Any, message: Any, session: Any, printer: Printer) -> Any:
    """One exchange: stream the answer to `message`; its final response."""
    stream = agent.run(message, stream=True, session=session)
    with printer.working():
        async for update in stream:
            printer.update(update)
    response = await stream.get_final_response()
    printer.response(response)
    return response


async def _answer(request: Any, interactive: bool) -> Any:
    """The person's answer to a request: an approval, or an authorization."""
    if request.type == "authorization_request":
        return await _authorization(request, interactive)
    return await _approval(request, interactive)


async def _authorization(request: Any, interactive: bool) -> Any:
    """Ask for the credential a tool needs (read without echo on a terminal), sent as
    `{"token": ...}`; out of band, ask the person to authorize at the URL first."""
    call = request.function_call
    name = call.name if call is not None else "the agent"
    if request.flow == "out_of_band":
        question = (
            f"{name} needs authorization ({request.text}): authorize at {request.uri}, "
            "then press Enter (n declines) "
        )
    else:
        where = f"; get one at {request.uri}" if request.uri else ""
        question = (
            f"{name} needs a {request.scheme} credential ({request.text}{where}); "
            "enter it (empty declines): "
        )
    if not interactive:
        sys.stderr.write(question + "\n")
        sys.stderr.flush()
    line = (await _read_line(question if interactive else None, secret=True) or "").strip()
    if request.flow == "out_of_band":
        return request.to_authorization_response(approved=line.lower() not in ("n", "no"))
    if not line:
        return request.to_authorization_response(approved=False)
    return request.to_authorization_response({"token": line})


async def _approval(request: Any, interactive: bool) -> Any:
    """Ask whether a tool call may run; the answer (yes only for y or yes)."""
    call = request.function_call
    arguments = (
        call.arguments if isinstance(call.arguments, str) else json_line(call.arguments or {})
    )
    question = f"approve {call.name}({arguments})? [y/N] "
    if not interactive:
        sys.stderr.write(question + "\n")
        sys.stderr.flush()
    line = await _read_line(question if interactive else None)
    approved = (line or "").strip().lower() in ("y", "yes")
    return request.to_function_approval_response(approved=approved)


def _agent(arguments: argparse.Namespace) -> Any:
    if arguments.agent:
        if (
            arguments.script
            or arguments.model
            or arguments.instructions
            or (arguments.client != "auto")
        ):
            raise CliError(
                "--agent brings its own client and instructions; "
                "leave out --client, --model, --script and --instructions",
                exit_code=2,
            )
        agent = load_target(arguments.agent)
        if not callable(getattr(agent, "run", None)):
            raise CliError(f"{arguments.agent} is of type {type(agent).__name__}, not an agent")
        return agent
    from agentry.agents import Agent

    client = make_client(arguments.client, model=arguments.model, script=arguments.script)
    return Agent(client=client, instructions=arguments.instructions, name="assistant")


async def _read_line(prompt: str | None, *, secret: bool = False) -> str | None:
    """The next line of standard input, or None at its end (with a prompt and `secret`,
    read from the terminal without echo).

    The line is read on a daemon thread, so the event loop keeps running (spinners,
    streams) and Ctrl-C never waits for a line that will not come.
    """
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str | None] = loop.create_future()

    def deliver(line: str | None) -> None:
        if not answer.done():
            answer.set_result(line)

    def read() -> None:
        line: str | None
        if prompt is not None:
            try:
                line = getpass.getpass(prompt) if secret else input(prompt)
            except EOFError:
                line = None
        else:
            line = sys.stdin.readline() or None
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(deliver, line)

    threading.Thread(target=read, name="agentry-chat-input", daemon=True).start()
    return await answer
