"""Picking each next token with llama.cpp's samplers, a grammar checked against the pick.

A grammar sampler run over the whole vocabulary (about 150,000 tokens for Qwen models) costs
tens of milliseconds a token on one core, as much as the model's own decoding step. Almost
always the sampling chain's pick is a token the grammar allows, so the pick is checked alone
first, and only a rejected pick makes the grammar filter the whole vocabulary before the
chain picks again. The result is the same token the grammar-first order gives (for greedy
decoding exactly; when sampling, from the same constrained distribution).
"""

from __future__ import annotations

import ctypes
import math
from types import ModuleType
from typing import TYPE_CHECKING, Protocol

from agentry.local._errors import LocalModelError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["SamplingSettings", "TokenSampler"]

_TOP_K = 40
_MIN_P = 0.05
_PENALTY_LAST_N = 64


class SamplerContext(Protocol):
    """What the sampler needs of a loaded `llama_cpp.Llama`."""

    @property
    def ctx(self) -> object: ...

    def n_vocab(self) -> int: ...


class SamplingSettings(Protocol):
    """How to pick tokens: the fields of a generation request the sampler reads."""

    @property
    def temperature(self) -> float: ...

    @property
    def top_p(self) -> float: ...

    @property
    def frequency_penalty(self) -> float: ...

    @property
    def presence_penalty(self) -> float: ...


class TokenSampler:
    """Picks tokens from the model's latest logits; owns its llama.cpp samplers.

    Args:
        llama_cpp: The `llama_cpp` module.
        llama: The loaded model.
        vocab: The model's `llama_vocab` pointer.
        settings: Temperature, nucleus and penalties.
        seed: The seed of random sampling (unused when the temperature is 0).
        grammar: GBNF text the output must match, with a `root` rule; `None` for free text.

    Raises:
        LocalModelError: llama.cpp could not parse the grammar.
    """

    def __init__(
        self,
        llama_cpp: ModuleType,
        llama: SamplerContext,
        vocab: object,
        settings: SamplingSettings,
        *,
        seed: int,
        grammar: str | None,
    ) -> None:
        self._lib = llama_cpp
        self._ctx = llama.ctx
        self._chain: object = _sampling_chain(llama_cpp, llama.n_vocab(), settings, seed)
        self._grammar: object = None
        if grammar is not None:
            self._grammar = llama_cpp.llama_sampler_init_grammar(
                vocab, grammar.encode("utf-8"), b"root"
            )
            if not self._grammar:
                self.close()
                raise LocalModelError(
                    "llama.cpp could not parse the grammar made from the JSON schema; "
                    "simplify the schema"
                )
            import numpy as np  # installed with llama-cpp-python; not needed to import agentry

            # The layout of llama.cpp's `llama_token_data`.
            layout = np.dtype(
                [("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True
            )
            self._np = np
            self._candidates = np.zeros(llama.n_vocab(), dtype=layout)
            self._ids = np.arange(llama.n_vocab(), dtype=np.int32)
            self._all = _token_array(llama_cpp, self._candidates)
            self._one = np.zeros(1, dtype=layout)
            self._single = _token_array(llama_cpp, self._one)

    def sample(self) -> int:
        """The next token, picked from the logits of the last evaluated position."""
        lib = self._lib
        if self._grammar is None:
            return int(lib.llama_sampler_sample(self._chain, self._ctx, -1))
        token = self._pick(constrained=False)
        if not self.allows(token):
            token = self._pick(constrained=True)
        self._accept_into_grammar(token)
        lib.llama_sampler_accept(self._chain, token)
        return token

    def accept(self, token: int) -> None:
        """Take `token` as written without sampling it (the grammar must allow it)."""
        self._accept_into_grammar(token)
        self._lib.llama_sampler_accept(self._chain, token)

    def _accept_into_grammar(self, token: int) -> None:
        if self._grammar is not None:
            self._lib.llama_sampler_accept(self._grammar, token)

    def _pick(self, *, constrained: bool) -> int:
        """The chain's pick among every token, or among those the grammar allows."""
        lib = self._lib
        n_vocab = len(self._ids)
        logits = self._np.ctypeslib.as_array(
            lib.llama_get_logits_ith(self._ctx, -1), shape=(n_vocab,)
        )
        self._candidates["id"] = self._ids
        self._candidates["logit"] = logits
        self._candidates["p"] = 0.0
        array = self._all
        array.size, array.selected, array.sorted = n_vocab, -1, False
        if constrained:
            lib.llama_sampler_apply(self._grammar, ctypes.byref(array))
        lib.llama_sampler_apply(self._chain, ctypes.byref(array))
        return int(self._candidates["id"][array.selected])

    def allows(self, token: int) -> bool:
        """Whether the grammar admits `token` next (any token without a grammar)."""
        if self._grammar is None:
            return True
        self._one[0] = (token, 0.0, 0.0)
        array = self._single
        array.size, array.selected, array.sorted = 1, -1, False
        self._lib.llama_sampler_apply(self._grammar, ctypes.byref(array))
        return not math.isinf(float(self._one["logit"][0]))

    def close(self) -> None:
        """Free the llama.cpp samplers."""
        if self._grammar:
            self._lib.llama_sampler_free(self._grammar)
        self._grammar = None
        if self._chain:
            self._lib.llama_sampler_free(self._chain)
        self._chain = None


def _sampling_chain(
    llama_cpp: ModuleType, n_vocab: int, settings: SamplingSettings, seed: int
) -> object:
    """llama.cpp's sampler chain for `settings`: greedy at temperature 0, else the usual
    top-k, nucleus and min-p cut before a seeded draw."""
    chain = llama_cpp.llama_sampler_chain_init(llama_cpp.llama_sampler_chain_default_params())

    def add(sampler: object) -> None:
        llama_cpp.llama_sampler_chain_add(chain, sampler)

    if settings.frequency_penalty or settings.presence_penalty:
        add(
            llama_cpp.llama_sampler_init_penalties(
                n_vocab, _PENALTY_LAST_N, 1.0, settings.frequency_penalty, settings.presence_penalty
            )
        )
    if settings.temperature <= 0.0:
        add(llama_cpp.llama_sampler_init_greedy())
        return chain
    add(llama_cpp.llama_sampler_init_top_k(_TOP_K))
    add(llama_cpp.llama_sampler_init_top_p(settings.top_p, 1))
    add(llama_cpp.llama_sampler_init_min_p(_MIN_P, 1))
    add(llama_cpp.llama_sampler_init_temp(settings.temperature))
    add(llama_cpp.llama_sampler_init_dist(seed))
    return chain


def _token_array(llama_cpp: ModuleType, data: np.ndarray) -> ctypes.Structure:
    """A `llama_token_data_array` over `data`'s memory (which must outlive it)."""
    return llama_cpp.llama_token_data_array(
        data=data.ctypes.data_as(llama_cpp.llama_token_data_p),
        size=len(data),
        selected=-1,
        sorted=False,
    )
