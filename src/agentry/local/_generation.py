"""The token loop: one prompt in, text pieces out, with stop sequences and a token limit.

It runs on the model's worker thread and checks a cancel flag between tokens, so a caller
that stops listening frees the model at once. Text that must come next (a reply's fixed
opening, or what a continuation rule says follows) is evaluated in one batch rather than
decoded token by token, and constrained output ends as soon as its JSON is complete.
"""

from __future__ import annotations

import codecs
import random
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from agentry.local._errors import LocalModelError
from agentry.local._llama import LlamaModel, LoadedModel, grammar_for_schema
from agentry.local._sampling import TokenSampler

__all__ = ["GenerationEnd", "GenerationRequest", "StopScanner", "evaluate_prompt", "generate"]


@dataclass(frozen=True)
class GenerationRequest:
    """What to generate.

    Attributes:
        prompt: The rendered prompt text.
        max_tokens: The most tokens to generate; `None` for as many as the context holds.
        temperature: Sampling temperature; 0 picks the likeliest token every time.
        top_p: Nucleus sampling threshold.
        seed: The sampling seed, for repeatable output; random when `None`.
        stop: Texts that end the output where they first appear (they are not returned).
        json_schema: When set, constrained decoding admits only JSON valid under it.
        frequency_penalty: Penalty on tokens by how often they appeared.
        presence_penalty: Penalty on tokens that appeared at all.
        prefill: Text the reply starts with, evaluated with the prompt (it is part of the
            output, and counts as input tokens, as a prefilled reply does elsewhere).
        continuation: Given the output so far, text that must come next ("" for none);
            it is evaluated in one batch and counts as input tokens.
    """

    prompt: str
    max_tokens: int | None = None
    temperature: float = 0.2
    top_p: float = 0.95
    seed: int | None = None
    stop: Sequence[str] = ()
    json_schema: dict[str, Any] | None = None
    frequency_penalty: float = 0.0
    presence_penalty: float = 0.0
    prefill: str = ""
    continuation: Callable[[str], str] | None = None


@dataclass(frozen=True)
class GenerationEnd:
    """The last item of a generation: why it stopped and how many tokens it used.

    Attributes:
        finish_reason: "stop" or "length".
        prompt_tokens: The prompt's tokens, with those of text given rather than generated.
        completion_tokens: The tokens the model generated one by one.
        cached_tokens: The prompt's tokens taken from the evaluation cached by the request
            before (a shared prefix), not evaluated again.
    """

    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0


def generate(
    model: LoadedModel, request: GenerationRequest, cancelled: threading.Event
) -> Iterator[str | GenerationEnd]:
    """Text pieces as they are decoded, then one :class:`GenerationEnd`.

    Raises:
        LocalModelError: The prompt does not fit the context window.
    """
    llama = model.llama
    prompt_tokens = llama.tokenize(request.prompt.encode("utf-8"), add_bos=False, special=True)
    n_ctx = llama.n_ctx()
    room = n_ctx - len(prompt_tokens)
    if room <= 0:
        raise LocalModelError(
            f"the prompt has {len(prompt_tokens)} tokens, more than the context window of "
            f"{n_ctx}; shorten the conversation or create the client with a larger n_ctx"
        )
    limit = room if request.max_tokens is None else min(request.max_tokens, room)
    grammar = grammar_for_schema(request.json_schema) if request.json_schema else None

    if request.seed is not None:
        # Reusing cached prompt state shifts the logits slightly, enough to change a sample:
        # a seeded request evaluates its whole prompt afresh so it repeats exactly.
        llama.reset()
    seed = random.randrange(2**31) if request.seed is None else request.seed
    sampler = model.sampler(request, seed=seed, grammar=grammar)
    loop = _TokenLoop(model, sampler, request, room=limit)
    try:
        yield from loop.run(prompt_tokens, cancelled)
    finally:
        sampler.close()
    yield GenerationEnd(
        loop.finish_reason, len(prompt_tokens) + loop.given, loop.generated, loop.cached
    )


class _TokenLoop:
    """One generation's state: what was written, what was given, why it ended."""

    def __init__(
        self, model: LoadedModel, sampler: TokenSampler, request: GenerationRequest, *, room: int
    ) -> None:
        self.model = model
        self.llama = model.llama
        self.sampler = sampler
        self.request = request
        self.room = room
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.stops = StopScanner(request.stop)
        self.output = ""
        self.generated = 0
        self.given = 0
        self.cached = 0
        self.finish_reason = "length"
        self.stopped = False

    def run(self, prompt_tokens: list[int], cancelled: threading.Event) -> Iterator[str]:
        """Text pieces as they come; sets the counts and the finish reason."""
        opening = self._given_tokens(self.request.prefill)
        self.cached = evaluate_prompt(self.llama, [*prompt_tokens, *opening])
        if opening:
            yield from self._emit(opening)
        while not self.stopped:
            token = self.sampler.sample()
            if self.model.is_end_of_generation(token):
                self.finish_reason = "stop"
                break
            self.generated += 1
            pending = [token]
            yield from self._emit(pending)
            if self.stopped or self._used() >= self.room or cancelled.is_set():
                break
            if self.request.continuation is not None:
                given = self._given_tokens(self.request.continuation(self.output))
                yield from self._emit(given)
                pending += given
            if self._complete():
                self.finish_reason = "stop"
                break
            self.llama.eval(pending)
        if not self.stopped:
            tail = self.stops.flush(self.decoder.decode(b"", final=True))
            if tail:
                yield tail

    def _used(self) -> int:
        return self.generated + self.given

    def _given_tokens(self, text: str) -> list[int]:
        """The tokens of `text` the grammar allows in a row, accepted as written."""
        if not text:
            return []
        tokens = self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        given: list[int] = []
        for token in tokens[: max(self.room - self._used(), 0)]:
            if not self.sampler.allows(token):
                break
            self.sampler.accept(token)
            given.append(token)
        self.given += len(given)
        return given

    def _emit(self, tokens: list[int]) -> Iterator[str]:
        if not tokens or self.stopped:
            return
        text = self.decoder.decode(self.llama.detokenize(tokens))
        piece, self.stopped = self.stops.feed(text)
        self.output += piece
        if self.stopped:
            self.finish_reason = "stop"
        if piece:
            yield piece

    def _complete(self) -> bool:
        """Whether constrained output is a whole JSON value that can only end here."""
        if self.request.json_schema is None or not self.output.rstrip().endswith(("}", "]", '"')):
            return False
        return self.sampler.allows(self.llama.token_eos())


def evaluate_prompt(llama: LlamaModel, prompt_tokens: Sequence[int]) -> int:
    """Evaluate `prompt_tokens` into the context; return how many came from the cache.

    The context holds the tokens of the previous request (its prompt and what it generated);
    their longest common prefix with the new prompt is kept, the rest evaluated. At least the
    prompt's last token is evaluated again, for the logits of the first pick.
    """
    held = llama.input_ids[: llama.n_tokens]
    shared = 0
    for old, new in zip(held, prompt_tokens, strict=False):
        if old != new:
            break
        shared += 1
    cached = min(shared, len(prompt_tokens) - 1)
    llama.n_tokens = cached  # eval drops what the context held after this point
    llama.eval(prompt_tokens[cached:])
    return cached


class StopScanner:
    """Holds back text that could be the start of a stop sequence until it is decided."""

    def __init__(self, stop: Sequence[str]) -> None:
        self._stop = [s for s in stop if s]
        self._pending = ""

    def feed(self, text: str) -> tuple[str, bool]:
        """Text safe to emit now, and whether a stop sequence was reached."""
        if not self._stop:
            return text, False
        pending = self._pending + text
        first = min(
            (index for s in self._stop if (index := pending.find(s)) >= 0),
            default=-1,
        )
        if first >= 0:
            self._pending = ""
            return pending[:first], True
        keep = max((_overlap(pending, s) for s in self._stop), default=0)
        self._pending = pending[len(pending) - keep :] if keep else ""
        return pending[: len(pending) - keep], False

    def flush(self, text: str) -> str:
        """Whatever is left once generation ended without a stop sequence."""
        rest = self._pending + text
        self._pending = ""
        return rest


def _overlap(text: str, stop: str) -> int:
    """The length of the longest end of `text` that is a beginning of `stop`."""
    for size in range(min(len(text), len(stop) - 1), 0, -1):
        if text.endswith(stop[:size]):
            return size
    return 0
