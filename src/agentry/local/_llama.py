"""The boundary to llama-cpp-python: imported lazily, typed by what agentry uses of it."""

from __future__ import annotations

import atexit
import importlib
import json
import os
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, cast

from agentry.errors import MissingExtraError
from agentry.local._errors import LocalModelError
from agentry.local._sampling import SamplingSettings, TokenSampler

__all__ = ["LlamaModel", "LoadedModel", "grammar_for_schema", "import_llama_cpp", "load_model"]


class LlamaModel(Protocol):
    """The part of `llama_cpp.Llama` that agentry uses."""

    metadata: dict[str, str]
    n_tokens: int
    """How many tokens the context holds evaluated."""
    input_ids: Sequence[int]
    """The tokens the context holds, valid up to `n_tokens`."""

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]: ...

    def detokenize(
        self, tokens: list[int], prev_tokens: list[int] | None = None, special: bool = False
    ) -> bytes: ...

    def eval(self, tokens: Sequence[int]) -> None: ...

    @property
    def ctx(self) -> object: ...

    def n_ctx(self) -> int: ...

    def n_vocab(self) -> int: ...

    def token_eos(self) -> int: ...

    def token_bos(self) -> int: ...

    def reset(self) -> None: ...


def import_llama_cpp() -> ModuleType:
    """The `llama_cpp` module, imported with a passive OpenMP wait policy.

    llama.cpp's OpenMP threads spin while they wait by default, which starves every other
    process on a small machine; the policy is read once, when the library loads.

    Raises:
        MissingExtraError: llama-cpp-python is not installed.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    try:
        return importlib.import_module("llama_cpp")
    except ImportError:
        raise MissingExtraError("LocalChatClient (the embedded llama.cpp model)", "local") from None


@dataclass
class LoadedModel:
    """A model loaded into memory, with what is needed to prompt it.

    Attributes:
        llama: The llama.cpp model.
        path: The GGUF file it was loaded from.
        format_prompt: Renders chat messages (role/content dicts) into the prompt text.
        is_end_of_generation: Whether a token ends the model's turn.
        load_seconds: How long loading took.
        llama_cpp: The `llama_cpp` module, for its samplers.
        vocab: The model's `llama_vocab` pointer.
    """

    llama: LlamaModel
    path: Path
    format_prompt: Callable[[list[dict[str, str]]], str]
    is_end_of_generation: Callable[[int], bool]
    load_seconds: float
    llama_cpp: ModuleType
    vocab: object

    def sampler(
        self, settings: SamplingSettings, *, seed: int, grammar: str | None
    ) -> TokenSampler:
        """A new token sampler on this model (see `TokenSampler`); close it after use."""
        return TokenSampler(
            self.llama_cpp, self.llama, self.vocab, settings, seed=seed, grammar=grammar
        )


def load_model(
    path: Path, *, n_ctx: int, n_threads: int | None, chat_template: str | None
) -> LoadedModel:
    """Load the GGUF file at `path` (already verified) into memory.

    Raises:
        LocalModelError: llama.cpp could not load the file, or it has no chat template.
        MissingExtraError: llama-cpp-python is not installed.
    """
    llama_cpp = import_llama_cpp()
    started = time.perf_counter()
    try:
        llama = cast(
            "LlamaModel",
            llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                n_threads_batch=n_threads,
                verbose=False,
            ),
        )
    except (ValueError, RuntimeError, OSError) as error:
        raise LocalModelError(f"llama.cpp could not load {path}: {error}") from None
    load_seconds = time.perf_counter() - started
    _free_before_exit(llama)

    template = chat_template or llama.metadata.get("tokenizer.chat_template")
    if not template:
        raise LocalModelError(
            f"{path} carries no chat template; pass chat_template= with a Jinja chat template"
        )
    formatter = llama_cpp.llama_chat_format.Jinja2ChatFormatter(
        template=template,
        eos_token=_token_text(llama, llama.token_eos()),
        bos_token=_token_text(llama, llama.token_bos()),
        add_generation_prompt=True,
    )

    def format_prompt(messages: list[dict[str, str]]) -> str:
        return cast("str", formatter(messages=messages).prompt)

    vocab: object = cast("Any", llama)._model.vocab
    is_eog = cast("Callable[[Any, int], bool]", llama_cpp.llama_vocab_is_eog)

    def is_end_of_generation(token: int) -> bool:
        return bool(is_eog(vocab, token))

    return LoadedModel(
        llama, path, format_prompt, is_end_of_generation, load_seconds, llama_cpp, vocab
    )


def _free_before_exit(llama: LlamaModel) -> None:
    """Free the model when the interpreter exits, before llama-cpp-python's module is torn
    down: freed later (by the garbage collector), its cleanup fails noisily."""
    model = weakref.ref(llama)

    def free() -> None:
        loaded = model()
        close = getattr(loaded, "close", None)
        if callable(close):
            close()

    atexit.register(free)


def _token_text(llama: LlamaModel, token: int) -> str:
    if token < 0:
        return ""
    return llama.detokenize([token], special=True).decode("utf-8", errors="replace")


@lru_cache(maxsize=64)
def _grammar_for_schema_text(schema_text: str) -> str:
    llama_grammar = importlib.import_module("llama_cpp.llama_grammar")
    try:
        return str(llama_grammar.json_schema_to_gbnf(schema_text))
    except Exception as error:  # the converter raises bare exceptions of several kinds
        raise LocalModelError(
            f"this JSON schema cannot be enforced by constrained decoding: {error}"
        ) from None


def grammar_for_schema(schema: dict[str, Any]) -> str:
    """A llama.cpp grammar (GBNF text) that admits exactly the JSON valid under `schema`.

    Raises:
        LocalModelError: The schema uses something the grammar converter does not support.
    """
    return _grammar_for_schema_text(json.dumps(schema))
