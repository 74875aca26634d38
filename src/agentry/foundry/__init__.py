"""Azure AI Foundry: `FoundryChatClient` for a project's OpenAI-compatible Responses API.

Needs the `azure` extra (`pip install 'agentry[azure]'`: the `openai` SDK and
`azure-identity`).

Example:
    >>> from azure.identity import AzureCliCredential
    >>> from agentry.foundry import FoundryChatClient
    >>> client = FoundryChatClient(
    ...     project_endpoint="https://my-account.services.ai.azure.com/api/projects/demo",
    ...     credential=AzureCliCredential(),
    ...     model="gpt-4.1-mini",
    ... )
"""

try:
    import openai  # noqa: F401  # pyright: ignore[reportUnusedImport]  # the extra must be installed
except ImportError as error:  # pragma: no cover - exercised without the extra
    from agentry.errors import MissingExtraError

    raise MissingExtraError("The Foundry chat client", "azure") from error

from agentry.foundry._client import FoundryChatClient

__all__ = ["FoundryChatClient"]
