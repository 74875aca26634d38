from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from agentry.testing import ReplayServer
from tests.azure.front import AzureFront

OPENAI_RECORDINGS = Path(__file__).parents[1] / "openai" / "recordings"

FrontFor = Callable[[str], AzureFront]


@pytest.fixture
def front_for(monkeypatch: pytest.MonkeyPatch) -> Iterator[FrontFor]:
    """Start an Azure front whose Responses requests replay an OpenAI recording by name.

    Azure's Responses payloads are OpenAI's; the recordings of tests/openai serve them.
    """
    for name in ("AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_BASE_URL", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("AZURE_OPENAI_API_VERSION", raising=False)
    with ExitStack() as stack:

        def start(recording: str) -> AzureFront:
            replay = stack.enter_context(ReplayServer(OPENAI_RECORDINGS / f"{recording}.json"))
            return stack.enter_context(AzureFront(replay.url))

        yield start
