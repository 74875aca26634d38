"""What the OpenAI-compatible server adds to a request over the same HTTP stack.

Both sides run uvicorn on 127.0.0.1 in processes of their own, answer the same scripted
agent and are asked in turn by one httpx client: agentry's `create_app`, and a bare
Starlette route that reads the JSON, runs the agent on the last message and writes the
answer by hand. The
difference is the server's own work: checking the request, converting messages, and
building the completion (or its chunks) with the `openai` SDK's types.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from contextlib import contextmanager
from pathlib import Path

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient
from agentry.openai.server import create_app
from agentry.types import Message

__all__ = ["REQUEST", "main", "measure", "served_app", "serving"]

_ANSWER = "It is sunny in Paris today. " * 10
REQUEST = {"model": "bench", "messages": [{"role": "user", "content": "Weather in Paris?"}]}


class _Answers(ScriptedChatClient):
    """A scripted model that gives the same answer to every call, in 100 chunks when
    streamed."""

    def __init__(self) -> None:
        super().__init__(chunk_size=len(_ANSWER) // 100)

    def _take(self, messages: list[Message], options: object, stream: bool) -> object:
        return _ANSWER


def _bare_app(agent: Agent) -> Starlette:
    async def completions(request: Request) -> Response:
        body = json.loads(await request.body())
        question = body["messages"][-1]["content"]
        if not body.get("stream"):
            response = await agent.run(question)
            message = {"role": "assistant", "content": response.text}
            return JSONResponse({"choices": [{"index": 0, "message": message}]})

        async def events() -> AsyncIterator[str]:
            async for update in agent.run(question, stream=True):
                delta = {"choices": [{"index": 0, "delta": {"content": update.text}}]}
                yield f"data: {json.dumps(delta)}\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


def served_app(kind: str) -> Starlette:
    """The application a server process of `kind` (`agentry` or `bare`) serves."""
    agent = Agent(client=_Answers(), name="bench")
    return create_app(agent) if kind == "agentry" else _bare_app(agent)


@contextmanager
def serving(kind: str) -> Generator[str]:
    """`kind`'s server as a process on a free port; its completions URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code = (
        "import uvicorn; from benchmarks.openai_server import served_app; "
        f"uvicorn.run(served_app({kind!r}), port={port}, log_level='warning')"
    )
    process = subprocess.Popen([sys.executable, "-c", code], cwd=Path(__file__).parents[1])
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    try:
        for _ in range(600):
            try:
                httpx.post(url, json=REQUEST).raise_for_status()
                break
            except httpx.TransportError:
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(10)


def _request(http: httpx.AsyncClient, url: str, *, stream: bool) -> Callable[[], Awaitable[None]]:
    body = {**REQUEST, "stream": stream}

    async def send() -> None:
        if not stream:
            (await http.post(url, json=body)).raise_for_status()
            return
        async with http.stream("POST", url, json=body) as answer:
            async for _ in answer.aiter_lines():
                pass

    return send


async def measure(
    served: str, bare: str, repeats: int = 5, iterations: int = 300
) -> dict[str, tuple[float, float]]:
    """The best mean seconds per request of (agentry, bare) by kind of request, the two
    servers asked in turn."""
    times: dict[str, tuple[float, float]] = {}
    async with httpx.AsyncClient() as http:
        for stream in (False, True):
            sides = (_request(http, served, stream=stream), _request(http, bare, stream=stream))
            for send in sides * 10:
                await send()
            best = [float("inf"), float("inf")]
            for _ in range(repeats):
                for side, send in enumerate(sides):
                    started = time.perf_counter()
                    for _ in range(iterations):
                        await send()
                    best[side] = min(best[side], (time.perf_counter() - started) / iterations)
            times["streamed, 100 chunks" if stream else "plain"] = (best[0], best[1])
    return times


def main() -> None:
    """Print the server's cost per request, plain and streamed."""
    print("== OpenAI-compatible server (scripted agent, httpx client, uvicorn on 127.0.0.1) ==")
    with serving("agentry") as served, serving("bare") as bare:
        measured = asyncio.run(measure(served, bare))
    for name, (ours, bare_time) in measured.items():
        overhead = ours - bare_time
        cost = (
            f"{overhead / 100 * 1e6:5.1f} us per chunk   (target: < 20 us)"
            if name.startswith("streamed")
            else f"{overhead * 1e6:5.0f} us per request   (target: < 300 us)"
        )
        print(
            f"chat completion, {name:<22} agentry {ours * 1e3:6.2f} ms   bare route "
            f"{bare_time * 1e3:6.2f} ms   ratio {ours / bare_time:5.2f}x   overhead {cost}"
        )


if __name__ == "__main__":
    main()
