"""OpenAI-compatible services known by name: where they listen and where their keys live.

Each entry turns a name into the settings of an `OpenAIChatCompletionClient`: `ollama`
(`http://localhost:11434/v1`), `vllm` (`http://localhost:8000/v1`, key `VLLM_API_KEY` if
the server wants one), `lmstudio` (`http://localhost:1234/v1`), `llamacpp` (llama.cpp's
`llama-server`, `http://localhost:8080/v1`, key `LLAMA_API_KEY` if set), `openrouter`
(`https://openrouter.ai/api/v1`, key `OPENROUTER_API_KEY` required) and `gemini` (Gemini's
OpenAI-compatible endpoint, `https://generativelanguage.googleapis.com/v1beta/openai/`, key
`GEMINI_API_KEY` or `GOOGLE_API_KEY` required).

`{PREFIX}_BASE_URL` (`OLLAMA_BASE_URL`, `VLLM_BASE_URL`, ...) moves a service elsewhere, and
`{PREFIX}_MODEL` names the model when none is given. For Ollama, `OLLAMA_HOST` (the
variable Ollama's own tools read, `host:port`) works too.

Example:
    >>> from agentry.openai import OpenAIChatCompletionClient
    >>> client = OpenAIChatCompletionClient.for_provider("ollama", model="qwen2.5")
    >>> str(client.client.base_url)
    'http://localhost:11434/v1/'
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from agentry.errors import ChatClientError

__all__ = ["PROVIDERS", "OpenAICompatibleProvider", "ProviderSettings", "get_provider"]


@dataclass(frozen=True)
class ProviderSettings:
    """The settings a named provider resolved to: arguments first, then the environment."""

    model: str
    base_url: str
    api_key: str | None


@dataclass(frozen=True)
class OpenAICompatibleProvider:
    """An OpenAI-compatible service agentry knows by name.

    Attributes:
        name: The name used in code and on the command line (`ollama`).
        title: The service's own name, for messages (`Ollama`).
        base_url: Where the service listens by default.
        env_prefix: `{env_prefix}_BASE_URL` and `{env_prefix}_MODEL` override the defaults.
        api_key_env: The variables that may hold the API key, tried in order.
        key_required: Whether the service refuses requests without a key.
        host_env: A variable holding `host:port` of the server (`/v1` is added), if the
            service's own tools read one.
    """

    name: str
    title: str
    base_url: str
    env_prefix: str
    api_key_env: tuple[str, ...] = ()
    key_required: bool = False
    host_env: str | None = None

    def resolve(
        self, *, model: str | None, api_key: str | None, base_url: str | None
    ) -> ProviderSettings:
        """The settings for a client of this service.

        Raises:
            ChatClientError: No model was given anywhere, or the service needs a key and
                none was found.
        """
        model_env = f"{self.env_prefix}_MODEL"
        resolved_model = model or os.environ.get(model_env)
        if not resolved_model:
            raise ChatClientError(
                f"no model for {self.title}: pass model= (on the command line, "
                f"--client {self.name}:MODEL) or set {model_env}"
            )
        key = api_key or next((os.environ[v] for v in self.api_key_env if os.environ.get(v)), None)
        if key is None and self.key_required:
            names = " or ".join(self.api_key_env)
            raise ChatClientError(f"{self.title} needs an API key: pass api_key= or set {names}")
        return ProviderSettings(
            model=resolved_model, base_url=base_url or self._base_url_from_env(), api_key=key
        )

    def _base_url_from_env(self) -> str:
        explicit = os.environ.get(f"{self.env_prefix}_BASE_URL")
        if explicit:
            return explicit
        host = os.environ.get(self.host_env) if self.host_env else None
        if host:
            with_scheme = host if "://" in host else f"http://{host}"
            return f"{with_scheme.rstrip('/')}/v1"
        return self.base_url


PROVIDERS: dict[str, OpenAICompatibleProvider] = {
    provider.name: provider
    for provider in (
        OpenAICompatibleProvider(
            "ollama", "Ollama", "http://localhost:11434/v1", "OLLAMA", host_env="OLLAMA_HOST"
        ),
        OpenAICompatibleProvider(
            "vllm", "vLLM", "http://localhost:8000/v1", "VLLM", api_key_env=("VLLM_API_KEY",)
        ),
        OpenAICompatibleProvider("lmstudio", "LM Studio", "http://localhost:1234/v1", "LMSTUDIO"),
        OpenAICompatibleProvider(
            "llamacpp",
            "llama.cpp's server",
            "http://localhost:8080/v1",
            "LLAMA_CPP",
            api_key_env=("LLAMA_API_KEY",),
        ),
        OpenAICompatibleProvider(
            "openrouter",
            "OpenRouter",
            "https://openrouter.ai/api/v1",
            "OPENROUTER",
            api_key_env=("OPENROUTER_API_KEY",),
            key_required=True,
        ),
        OpenAICompatibleProvider(
            "gemini",
            "Gemini",
            "https://generativelanguage.googleapis.com/v1beta/openai/",
            "GEMINI",
            api_key_env=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
            key_required=True,
        ),
    )
}
"""The named providers, by name."""


def get_provider(name: str) -> OpenAICompatibleProvider:
    """The provider called `name`.

    Raises:
        ChatClientError: No provider has that name; the message lists the names.
    """
    provider = PROVIDERS.get(name.lower())
    if provider is None:
        raise ChatClientError(
            f"unknown OpenAI-compatible provider {name!r}; known: {', '.join(PROVIDERS)} "
            "(for another server, pass base_url= to OpenAIChatCompletionClient)"
        )
    return provider
