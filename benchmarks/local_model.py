"""The embedded local model: load time, time to first token, tokens per second.

Each figure is measured in a fresh process, so the load time is a real first load (with the
file in the page cache) and includes verifying the file's sha256.

Run: `python -m benchmarks.local_model [--model NAME] [--threads N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from agentry import ChatOptions
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

    options: ChatOptions = {"max_tokens": _TOKENS, "temperature": 0.0}
    await client.get_response("Say hi.", options={"max_tokens": 4})  # warm the prompt path
    started = time.perf_counter()
    first_token: float | None = None
    stream = client.get_response(_PROMPT, stream=True, options=options)
    async for update in stream:
        if first_token is None and update.text:
            first_token = time.perf_counter() - started
    total = time.perf_counter() - started
    final = await stream.get_final_response()
    usage = final.usage_details or {}
    generated = usage.get("output_token_count", 0)
    decode_seconds = total - (first_token or 0.0)
    rate = (generated - 1) / decode_seconds if generated > 1 and decode_seconds > 0 else 0.0
    threads = "default" if n_threads is None else str(n_threads)
    print(
        f"local model {info.name:<28} threads {threads:<7} "
        f"load {info.load_seconds:5.2f} s (ready incl. sha256 {ready:5.2f} s)   "
        f"first token {(first_token or 0.0) * 1000:6.0f} ms   "
        f"{rate:5.1f} tokens/s ({generated} tokens)"
    )


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description="Local model load and generation speed.")
    parser.add_argument("--model", default=DEFAULT_LOCAL_MODEL)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    asyncio.run(measure(args.model, args.threads))


if __name__ == "__main__":
    main()
