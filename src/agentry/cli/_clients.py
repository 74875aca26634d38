"""Choosing the chat client of `agentry chat`: scripted, OpenAI, Azure OpenAI, Foundry,
Anthropic, a named OpenAI-compatible server (`ollama:qwen2.5`), or the embedded local model."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any, cast

from agentry.cli._errors import CliError
from agentry.errors import MissingExtraError

__all__ = ["CLIENT_CHOICES", "CLIENT_LOCATIONS", "make_client", "scripted_client_from_file"]

CLIENT_CHOICES = (
    "auto",
    "local",
    "openai",
    "openai-chat",
    "azure",
    "azure-chat",
    "foundry",
    "anthropic",
    "scripted",
)
"""The clients by name; `PROVIDER:MODEL` (`ollama:qwen2.5`) names an OpenAI-compatible server
of `agentry.openai.providers`."""

CLIENT_LOCATIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "openai": (("agentry.openai", "OpenAIChatClient"),),
    "openai-chat": (("agentry.openai", "OpenAIChatCompletionClient"),),
    "azure": (("agentry.azure", "AzureOpenAIChatClient"),),
    "azure-chat": (("agentry.azure", "AzureOpenAIChatCompletionClient"),),
    "foundry": (("agentry.foundry", "FoundryChatClient"),),
    "anthropic": (("agentry.anthropic", "AnthropicChatClient"),),
    "local": (("agentry.local", "LocalChatClient"), ("agentry.clients.local", "LocalChatClient")),
}
"""Where each client of `CLIENT_CHOICES` lives, as (module, class); the first importable
place wins."""

_EXTRAS = {
    "openai": "openai",
    "openai-chat": "openai",
    "azure": "azure",
    "azure-chat": "azure",
    "foundry": "azure",
    "anthropic": "anthropic",
    "local": "local",
}


def make_client(choice: str, *, model: str | None = None, script: str | None = None) -> Any:
    """The chat client `choice` names.

    `auto` picks the Chat Completions API when `OPENAI_BASE_URL` is set (most servers that
    speak OpenAI's protocol offer it), else OpenAI's Responses API when `OPENAI_API_KEY` is
    set, else the local model. `scripted` replays the answers of a JSON `script` file.

    Raises:
        MissingExtraError: The client's extra is not installed.
        CliError: The client is not in this installation, or the script is missing or
            malformed.
    """
    if choice == "auto":
        if os.environ.get("OPENAI_BASE_URL"):
            choice = "openai-chat"
        elif os.environ.get("OPENAI_API_KEY"):
            choice = "openai"
        else:
            choice = "local"
    if choice == "scripted":
        if not script:
            raise CliError(
                "--client scripted needs --script FILE.json (a list of answers)", exit_code=2
            )
        return scripted_client_from_file(script, model=model)
    if script:
        raise CliError(f"--script only works with --client scripted, not {choice!r}", exit_code=2)
    if choice not in CLIENT_LOCATIONS:
        return _provider_client(choice, model=model)
    client_class = _find_client(choice)
    return client_class(model) if model else client_class()


def _provider_client(choice: str, *, model: str | None) -> Any:
    """A client for `PROVIDER[:MODEL]`, a named OpenAI-compatible server."""
    name, _, named_model = choice.partition(":")
    try:
        from agentry.openai import OpenAIChatCompletionClient
        from agentry.openai.providers import PROVIDERS
    except ImportError as error:
        raise CliError(
            f"--client {choice} needs the 'openai' extra; install it with: "
            "pip install 'agentry[openai]'"
        ) from error
    if name not in PROVIDERS:
        raise CliError(
            f"unknown client {choice!r}; choose one of: {', '.join(CLIENT_CHOICES)}, "
            f"or PROVIDER:MODEL with a provider of: {', '.join(PROVIDERS)}",
            exit_code=2,
        )
    if named_model and model and named_model != model:
        raise CliError(
            f"--client {choice} and --model {model} name two models; give one", exit_code=2
        )
    return OpenAIChatCompletionClient.for_provider(name, model=named_model or model)


def _find_client(choice: str) -> Any:
    locations = CLIENT_LOCATIONS.get(choice)
    if locations is None:
        raise CliError(
            f"unknown client {choice!r}; choose one of: {', '.join(CLIENT_CHOICES)}", exit_code=2
        )
    missing_extra: ImportError | None = None
    for module_name, class_name in locations:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name and error.name.startswith("agentry"):
                continue  # this installation has no such module; try the next place
            missing_extra = error
            continue
        return getattr(module, class_name)
    if missing_extra is not None:
        raise MissingExtraError(f"the {choice} client", _EXTRAS[choice], missing=missing_extra.name)
    where = " or ".join(f"{m}.{c}" for m, c in locations)
    hint = "set OPENAI_API_KEY (or OPENAI_BASE_URL) to use OpenAI, or " if choice == "local" else ""
    raise CliError(
        f"this installation of agentry has no {choice} chat client ({where}); "
        f"{hint}use --client scripted --script FILE.json to try the command line without a model"
    )


def scripted_client_from_file(path: str, *, model: str | None = None) -> Any:
    """A `ScriptedChatClient` from a JSON file.

    The file holds a list of answers, or `{"responses": [...], "chunk_size": N}`. An answer
    is a string (the reply), `{"text": "..."}`, `{"tool_calls": [{"name", "arguments",
    "id"}]}`, or `{"error": "message"}` (the call fails with that message).
    """
    from agentry.clients.scripted import ScriptedChatClient

    try:
        data: object = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CliError(f"script file not found: {path!r}") from None
    except (OSError, ValueError) as error:
        raise CliError(f"cannot read script file {path!r}: {error}") from None
    chunk_size: object = None
    if isinstance(data, dict):
        settings = cast("dict[str, object]", data)
        chunk_size = settings.get("chunk_size")
        data = settings.get("responses")
    if not isinstance(data, list):
        raise CliError(
            f'script file {path!r} must hold a JSON list of answers (or {{"responses": [...]}})'
        )
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise CliError(f"chunk_size in script file {path!r} must be a positive integer")
    answers = cast("list[object]", data)
    responses = [_script_item(item, path, index) for index, item in enumerate(answers)]
    return ScriptedChatClient(responses, chunk_size=chunk_size, model=model or "scripted")


def _script_item(item: object, path: str, index: int) -> Any:
    from agentry.clients.scripted import ScriptedChatClient
    from agentry.errors import ChatClientError

    if isinstance(item, str):
        return ScriptedChatClient.reply(item)
    if isinstance(item, dict):
        answer = cast("dict[str, object]", item)
        text, error, calls = answer.get("text"), answer.get("error"), answer.get("tool_calls")
        if isinstance(text, str):
            return ScriptedChatClient.reply(text)
        if isinstance(error, str):
            return ChatClientError(error)
        if isinstance(calls, list) and calls:
            return ScriptedChatClient.function_calls(
                _tool_call(call, path, index) for call in cast("list[object]", calls)
            )
    raise CliError(
        f'answer {index} of script file {path!r} is not a string, {{"text": ...}}, '
        f'{{"tool_calls": [...]}} or {{"error": ...}}: {json.dumps(item)[:80]}'
    )


def _tool_call(call: object, path: str, index: int) -> tuple[str, Any, str | None]:
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):  # pyright: ignore[reportUnknownMemberType]
        raise CliError(
            f'a tool call in answer {index} of script file {path!r} needs a "name": '
            f"{json.dumps(call)[:80]}"
        )
    fields = cast("dict[str, Any]", call)
    call_id = fields.get("id")
    return fields["name"], fields.get("arguments") or {}, str(call_id) if call_id else None
