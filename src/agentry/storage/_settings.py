"""`PoolSettings`: the connection pool of a store's database."""

from __future__ import annotations

from dataclasses import dataclass

from agentry.storage._errors import StorageConfigError

__all__ = ["PoolSettings"]


@dataclass(frozen=True)
class PoolSettings:
    """How many connections a store keeps to its database, and how long it waits for one.

    Every store that takes a database URL takes these settings (`pool=`); the defaults are
    SQLAlchemy's. A store under load needs `size + max_overflow` at least as large as the
    requests it serves at once; PostgreSQL's `max_connections` bounds the sum over all
    processes.

    Attributes:
        size: Connections kept open.
        max_overflow: Connections opened beyond `size` at busy times, closed when returned.
        timeout: Seconds a request waits for a free connection before it fails.
        recycle: Seconds after which a connection is replaced (None: never).
        pre_ping: Test each connection before use (survives a restarted server).

    Example:
        >>> pool = PoolSettings(size=20, max_overflow=20, timeout=10.0)
    """

    size: int = 5
    max_overflow: int = 10
    timeout: float = 30.0
    recycle: float | None = None
    pre_ping: bool = False

    def __post_init__(self) -> None:
        if self.size < 1:
            raise StorageConfigError(f"pool size must be at least 1, got {self.size}")
        if self.max_overflow < 0:
            raise StorageConfigError(
                f"pool max_overflow must be 0 or more, got {self.max_overflow}"
            )
        if self.timeout <= 0:
            raise StorageConfigError(f"pool timeout must be positive, got {self.timeout}")
        if self.recycle is not None and self.recycle <= 0:
            raise StorageConfigError(f"pool recycle must be positive, got {self.recycle}")
