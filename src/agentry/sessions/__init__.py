"""Sessions, context providers and history providers.

History providers: `InMemoryHistoryProvider` (in the session's state, the default),
`FileHistoryProvider` (JSON Lines files) and `SQLiteHistoryProvider`/`SQLHistoryProvider`
(SQLAlchemy; loaded on first use). Context compaction (`compaction=` on any of them):
`SlidingWindowCompaction`, `TokenBudgetCompaction`, `SummaryCompaction`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentry.errors import lazy_exports
from agentry.sessions._compaction import (
    CompactionStrategy,
    SlidingWindowCompaction,
    TokenBudgetCompaction,
    TokenCounter,
    estimate_tokens,
)
from agentry.sessions._file_history import FileHistoryProvider
from agentry.sessions._providers import ContextProvider, HistoryProvider, InMemoryHistoryProvider
from agentry.sessions._session import AgentSession, SessionContext, register_state_type
from agentry.sessions._summary_compaction import SummaryCompaction

if TYPE_CHECKING:
    from agentry.sessions._sql_history import SQLHistoryProvider, SQLiteHistoryProvider

__all__ = [
    "AgentSession",
    "CompactionStrategy",
    "ContextProvider",
    "FileHistoryProvider",
    "HistoryProvider",
    "InMemoryHistoryProvider",
    "SQLHistoryProvider",
    "SQLiteHistoryProvider",
    "SessionContext",
    "SlidingWindowCompaction",
    "SummaryCompaction",
    "TokenBudgetCompaction",
    "TokenCounter",
    "estimate_tokens",
    "register_state_type",
]


# The SQL history providers load on first use: they import SQLAlchemy.
__getattr__, __dir__ = lazy_exports(
    __name__,
    dict.fromkeys(("SQLHistoryProvider", "SQLiteHistoryProvider"), "agentry.sessions._sql_history"),
)
