"""Sessions, context providers and history providers.

History providers: `InMemoryHistoryProvider` (in the session's state, the default),
`FileHistoryProvider` (JSON Lines files) and `SQLiteHistoryProvider`/`SQLHistoryProvider`
(SQLAlchemy; loaded on first use). Context compaction (`compaction=` on any of them):
`SlidingWindowCompaction`, `TokenBudgetCompaction`, `SummaryCompaction`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    if name in ("SQLHistoryProvider", "SQLiteHistoryProvider"):
        from agentry.sessions import _sql_history

        return getattr(_sql_history, name)
    raise AttributeError(f"module 'agentry.sessions' has no attribute {name!r}")
