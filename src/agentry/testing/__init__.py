"""Testing helpers: replay recorded HTTP exchanges, and record real ones.

`ReplayServer` serves recordings on 127.0.0.1 so clients are tested through their real
HTTP stack (it needs `uvicorn`); `RecordingTransport` captures real exchanges of the
`openai` or `anthropic` SDK into the same format (it needs `httpx2`, which either extra
brings). The model double for agents is
`agentry.clients.scripted.ScriptedChatClient`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentry.errors import lazy_exports
from agentry.testing._exchanges import Exchange, load_exchanges, save_exchanges

if TYPE_CHECKING:
    from agentry.testing._recorder import RecordingTransport
    from agentry.testing._replay import ReplayServer

__all__ = ["Exchange", "RecordingTransport", "ReplayServer", "load_exchanges", "save_exchanges"]


__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "RecordingTransport": "agentry.testing._recorder",
        "ReplayServer": "agentry.testing._replay",
    },
)
