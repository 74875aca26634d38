"""The embedded local model: load time, time to first token, tokens per second.

Each figure is measured in a fresh process, so the load time is a real first load (with the
file in the page cache) and includes verifying the file's sha256.

The second line times a conversation with a tool: a tool round, its answer, then the next
user message's decision step. That decision step reuses llama.cpp's prompt cache when the
answer step kept the tool step's prompt prefix; it is compared with the same request with its
whole prompt evaluated afresh (a cache miss).

The third line decodes the same reply with agentry and with llama-cpp-python alone, in turns,
on the same file with the same threads, and prints agentry's rate as a share of the raw one,
then the process's CPU time per decoded token of each: other processes slow both rates by
more than their difference, while CPU time per token barely moves under load.

Run: `python -m benchmarks.local_model [--model NAME] [--threads N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from dataclasses import dataclass
from typing import Any, cast

from agentry import ChatOptions, Content, Message, tool
from agentry.local import DEFAULT_LOCAL_MODEL, LocalChatClient

__all__ = ["main", "measure"]

_PROMPT = "Write a short paragraph about the history of the bicycle."
_TOKENS = 96


async def measure(model: str = DEFAULT_LOCAL_MODEL, n_threads: int | None = None) -> None:
    """Print one line of figures for `model`."""
    client = LocalChatClient(model, n_threads=n_threads)
    started = time.perf_counter()
    info = await client.load()
    ready = time.perf_counter() - started

    await client.get_response("Say hi.", options={"max_tokens": 4})  # warm the prompt path
    decode = await _decode(client)
    threads = "default" if n_threads is None else str(n_threads)
    print(
        f"local model {info.name:<28} threads {threads:<7} "
        f"load {info.load_seconds:5.2f} s (ready incl. sha256 {ready:5.2f} s)   "
        f"first token {decode.first_token * 1000:6.0f} ms   "
        f"{decode.rate:5.1f} tokens/s ({decode.tokens} tokens)"
    )


@dataclass(frozen=True)
class _Decode:
    """One decode of the benchmark's reply, timed from its first token on."""

    first_token: float
    seconds: float
    cpu_seconds: float
    tokens: int

    @property
    def rate(self) -> float:
        """Tokens per second after the first token."""
        return _rate(self.tokens, self.seconds)

    @property
    def cpu_ms_per_token(self) -> float:
        """The process's CPU milliseconds per token after the first."""
        return self.cpu_seconds * 1000 / (self.tokens - 1) if self.tokens > 1 else 0.0


class _Clock:
    """Wall and process CPU time since the first token."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.first_token: float | None = None
        self.first_cpu = 0.0

    def token(self) -> None:
        if self.first_token is None:
            self.first_token = time.perf_counter() - self.started
            self.first_cpu = time.process_time()

    def done(self, tokens: int) -> _Decode:
        first = self.first_token or 0.0
        seconds = time.perf_counter() - self.started - first
        return _Decode(first, seconds, time.process_time() - self.first_cpu, tokens)


def _raw_decode(llm: Any) -> _Decode:
    """llama-cpp-python alone decoding the benchmark's reply."""
    messages: Any = [{"role": "user", "content": _PROMPT}]
    clock = _Clock()
    pieces: list[str] = []
    for chunk in llm.create_chat_completion(
        messages=messages, max_tokens=_TOKENS, temperature=0.0, stream=True
    ):
        delta = cast("dict[str, Any]", chunk)["choices"][0]["delta"].get("content")
        if delta:
            clock.token()
            pieces.append(str(delta))
    return clock.done(len(llm.tokenize("".join(pieces).encode(), add_bos=False)))


async def _decode(client: LocalChatClient) -> _Decode:
    """agentry's client streaming the benchmark's reply."""
    options: ChatOptions = {"max_tokens": _TOKENS, "temperature": 0.0}
    clock = _Clock()
    stream = client.get_response(_PROMPT, stream=True, options=options)
    async for update in stream:
        if update.text:
            clock.token()
    usage = (await stream.get_final_response()).usage_details or {}
    return clock.done(usage.get("output_token_count", 0))


def _rate(generated: int, decode_seconds: float) -> float:
    """Tokens per second after the first token."""
    return (generated - 1) / decode_seconds if generated > 1 and decode_seconds > 0 else 0.0


async def measure_against_raw(
    model: str = DEFAULT_LOCAL_MODEL, n_threads: int | None = None, *, rounds: int = 3
) -> None:
    """Decode the same reply with agentry and with llama-cpp-python alone, in turns, on the
    same file and threads; print the best rate of each and agentry's share of the raw one
    (the best of several turns is the one least slowed by other processes)."""
    from llama_cpp import Llama

    client = LocalChatClient(model, n_threads=n_threads)
    path = (await client.load()).path
    llm = Llama(model_path=str(path), n_ctx=client.n_ctx, n_threads=client.n_threads, verbose=False)
    ours: list[_Decode] = []
    raw: list[_Decode] = []
    for _ in range(rounds):
        ours.append(await _decode(client))
        raw.append(await asyncio.to_thread(_raw_decode, llm))
    best_ours = max(d.rate for d in ours)
    best_raw = max(d.rate for d in raw)
    cpu_ours = statistics.median(d.cpu_ms_per_token for d in ours)
    cpu_raw = statistics.median(d.cpu_ms_per_token for d in raw)
    print(
        f"decode rate {model:<28} agentry {best_ours:5.1f} tokens/s   llama-cpp-python alone "
        f"{best_raw:5.1f} tokens/s   ({best_ours / best_raw:.0%}; best of {rounds} turns each)   "
        f"CPU per token agentry {cpu_ours:5.1f} ms, alone {cpu_raw:5.1f} ms "
        f"(agentry at {cpu_raw / cpu_ours:.0%} of the raw speed; median of {rounds})"
    )


@tool
def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"{city}: light rain, 14 C"


async def _timed(client: LocalChatClient, messages: list[Message], options: ChatOptions) -> float:
    started = time.perf_counter()
    await client.get_response(messages, options=options)
    return time.perf_counter() - started


async def measure_tool_round(
    model: str = DEFAULT_LOCAL_MODEL, n_threads: int | None = None
) -> None:
    """Print the seconds of a tool round, its answer and the next decision, warm and cold."""
    client = LocalChatClient(model, n_threads=n_threads)
    await client.load()
    options: ChatOptions = {"tools": [get_weather], "max_tokens": 48, "temperature": 0.0}
    call = Content.from_function_call(call_id="c1", name="get_weather", arguments={"city": "Paris"})
    result = Content.from_function_result(call_id="c1", result="Paris: light rain, 14 C")
    first = [Message("user", ["What's the weather in Paris?"])]
    answered = [
        *first,
        Message("assistant", [call]),
        Message("tool", [result]),
    ]
    follow_up = [
        *answered,
        Message("assistant", ["It is raining lightly in Paris, at 14 C."]),
        Message("user", ["Thanks! Suggest a name for a grey kitten."]),
    ]
    await _timed(client, first, {**options, "seed": 1})  # warm the model, then a cold start
    tool_round = await _timed(client, first, options)
    answer = await _timed(client, answered, options)
    next_turn = await _timed(client, follow_up, options)
    cold = await _timed(client, follow_up, {**options, "seed": 1})  # the whole prompt afresh
    print(
        f"local tool round {model:<28} decision {tool_round:5.2f} s   answer {answer:5.2f} s   "
        f"next turn {next_turn:5.2f} s   the same with its whole prompt afresh {cold:5.2f} s "
        f"({cold / next_turn:.1f}x)"
    )


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description="Local model load and generation speed.")
    parser.add_argument("--model", default=DEFAULT_LOCAL_MODEL)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    asyncio.run(measure(args.model, args.threads))
    asyncio.run(measure_tool_round(args.model, args.threads))
    asyncio.run(measure_against_raw(args.model, args.threads))


if __name__ == "__main__":
    main()
