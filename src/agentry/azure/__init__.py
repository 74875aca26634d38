"""Azure integrations, loaded on first use: Azure OpenAI and Azure AI Foundry chat clients.

`import agentry.azure` loads no SDK; the first use of a name below loads what it needs
(the `openai` SDK, and `azure-identity` for Microsoft Entra ID sign-in: the `azure` extra).

- `AzureOpenAIChatClient`: the Responses API of an Azure OpenAI resource.
- `AzureOpenAIChatCompletionClient`: its Chat Completions API.
- `FoundryChatClient`: an Azure AI Foundry project endpoint (also `agentry.foundry`).
- `entra_token_provider`: Microsoft Entra ID tokens from an `azure-identity` credential.

Example:
    >>> from agentry.azure import AzureOpenAIChatClient
    >>> client = AzureOpenAIChatClient(
    ...     "gpt-4.1-mini", endpoint="https://my-resource.openai.azure.com", api_key="..."
    ... )
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentry.errors import lazy_exports

if TYPE_CHECKING:
    from agentry.azure._clients import AzureOpenAIChatClient, AzureOpenAIChatCompletionClient
    from agentry.azure._credentials import (
        AZURE_OPENAI_SCOPE,
        FOUNDRY_SCOPE,
        TokenProvider,
        entra_token_provider,
    )
    from agentry.foundry import FoundryChatClient

__all__ = [
    "AZURE_OPENAI_SCOPE",
    "FOUNDRY_SCOPE",
    "AzureOpenAIChatClient",
    "AzureOpenAIChatCompletionClient",
    "FoundryChatClient",
    "TokenProvider",
    "entra_token_provider",
]

_HOMES = {
    "AzureOpenAIChatClient": "agentry.azure._clients",
    "AzureOpenAIChatCompletionClient": "agentry.azure._clients",
    "FoundryChatClient": "agentry.foundry",
    "AZURE_OPENAI_SCOPE": "agentry.azure._credentials",
    "FOUNDRY_SCOPE": "agentry.azure._credentials",
    "TokenProvider": "agentry.azure._credentials",
    "entra_token_provider": "agentry.azure._credentials",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, extra="azure", feature="agentry.azure.{name}")
