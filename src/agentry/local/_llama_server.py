"""Serving a local model from llama.cpp's own HTTP server, `llama-server`, with tool calls.

`llama-server` speaks the OpenAI Chat Completions and Responses APIs, so agentry's OpenAI
clients can use a registered model through it. It parses tool calls out of the model's text
by the chat template's format (with `--jinja`); a model that does not write the format of its
own template gets one it does write, shipped in `chat_templates/`.
"""

from __future__ import annotations

from pathlib import Path

from agentry.local._model_files import resolve_model_file
from agentry.local._registry import get_local_model

__all__ = ["SERVED_MODEL", "llama_server_arguments"]

SERVED_MODEL = "qwen2.5-coder-0.5b-instruct"
"""The model `llama_server_arguments` serves unless told another: the one whose tool calls
`llama-server` is known to parse with the shipped template (`agentry[local]` installs it)."""

_TEMPLATES = Path(__file__).with_name("chat_templates")
_TOOL_CALL_TEMPLATES = {
    "qwen2.5-coder-0.5b-instruct": "chatml_tool_calls.jinja",
}
"""model name -> the template, in `_TEMPLATES`, whose tool-call format the model writes."""


def llama_server_arguments(
    model: str = SERVED_MODEL, *, cache_dir: Path | None = None
) -> list[str]:
    """The `llama-server` arguments that serve a registered local model with tool calls.

    They name the model's verified GGUF file (assembled into the cache first if it comes in
    pieces), turn on Jinja chat templates, and name the chat template whose tool-call format
    the model writes when its own one does not suit it.

    Args:
        model: The registered model's name.
        cache_dir: Where an assembled model file is kept (default: `default_cache_dir()`).

    Raises:
        UnknownLocalModelError: `model` is not registered.
        ModelNotInstalledError: The model's weights are not installed.

    Example:
        >>> llama_server_arguments()  # doctest: +SKIP
        ['--model', '/home/me/.cache/agentry/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf',
         '--jinja', '--chat-template-file', '.../chat_templates/chatml_tool_calls.jinja']
    """
    path = resolve_model_file(get_local_model(model), cache_dir)
    arguments = ["--model", str(path), "--jinja"]
    template = _TOOL_CALL_TEMPLATES.get(model)
    if template is not None:
        arguments += ["--chat-template-file", str(_TEMPLATES / template)]
    return arguments
