"""Where the server keeps the responses it stored, so a later request continues one.

A stored response holds the messages of its own turn (its input, then every message the
agent's run produced, tool calls and results included) and the id of the response it
continued; a conversation is read back by following those ids.
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError

from agentry.errors import HistoryStoreError
from agentry.storage import PoolSettings, SQLTableStore
from agentry.types import Message

__all__ = [
    "InMemoryResponseStore",
    "ResponseStore",
    "SQLResponseStore",
    "StoredResponse",
    "conversation",
]


@dataclass(frozen=True)
class StoredResponse:
    """One stored response.

    Attributes:
        id: The response's id (`resp_...`).
        previous_id: The response it continued, if any.
        messages: Its turn's messages, as `Message.to_dict()` gives them.
        body: The response object as the server answered it.
    """

    id: str
    previous_id: str | None
    messages: list[dict[str, Any]]
    body: dict[str, Any]

    def to_json(self) -> str:
        """The record as JSON text."""
        return json.dumps(
            {"previous_id": self.previous_id, "messages": self.messages, "body": self.body}
        )

    @classmethod
    def from_json(cls, response_id: str, text: str) -> StoredResponse:
        """The record `to_json` wrote."""
        data = json.loads(text)
        return cls(response_id, data["previous_id"], data["messages"], data["body"])


@runtime_checkable
class ResponseStore(Protocol):
    """Keeps stored responses by id."""

    async def get(self, response_id: str) -> StoredResponse | None:
        """The response stored as `response_id`, or None."""
        ...

    async def put(self, response: StoredResponse) -> None:
        """Store `response`."""
        ...

    async def delete(self, response_id: str) -> bool:
        """Forget `response_id`; whether it was stored."""
        ...


async def conversation(store: ResponseStore, response_id: str) -> list[Message]:
    """The messages of the conversation up to and including response `response_id`.

    Raises:
        LookupError: `response_id`, or a response it continued, is not stored.
    """
    turns: list[list[dict[str, Any]]] = []
    wanted: str | None = response_id
    while wanted is not None:
        stored = await store.get(wanted)
        if stored is None:
            if wanted == response_id:
                raise LookupError(f"there is no stored response {response_id!r}")
            raise LookupError(
                f"response {response_id!r} continues {wanted!r}, which is no longer stored"
            )
        turns.append(stored.messages)
        wanted = stored.previous_id
    return [Message.from_dict(m) for turn in reversed(turns) for m in turn]


class InMemoryResponseStore:
    """Responses kept in this process, the oldest forgotten past `max_responses`.

    Args:
        max_responses: How many responses to keep.
    """

    def __init__(self, max_responses: int = 10_000) -> None:
        if max_responses < 1:
            raise ValueError(f"max_responses must be at least 1, not {max_responses}")
        self.max_responses = max_responses
        self._responses: OrderedDict[str, str] = OrderedDict()

    async def get(self, response_id: str) -> StoredResponse | None:
        """The response stored as `response_id`, or None."""
        text = self._responses.get(response_id)
        if text is None:
            return None
        self._responses.move_to_end(response_id)
        return StoredResponse.from_json(response_id, text)

    async def put(self, response: StoredResponse) -> None:
        """Store `response` (as JSON, so what is read back is never shared)."""
        self._responses[response.id] = response.to_json()
        self._responses.move_to_end(response.id)
        while len(self._responses) > self.max_responses:
            self._responses.popitem(last=False)

    async def delete(self, response_id: str) -> bool:
        """Forget `response_id`; whether it was stored."""
        return self._responses.pop(response_id, None) is not None


class SQLResponseStore(SQLTableStore):
    """Responses kept in a SQL database (a SQLite file, or PostgreSQL by URL), shared by
    every server on it: a conversation started through one continues through another.

    Args:
        url: A database URL or SQLite file path; without it and without `engine`,
            `$AGENTRY_DATABASE_URL`.
        engine: An existing engine to share.
        pool: The connection pool of the engine made from `url`.
        table: The table name.

    Example:
        >>> store = SQLResponseStore("sqlite:///responses.sqlite")
    """

    def __init__(
        self,
        url: str | os.PathLike[str] | None = None,
        *,
        engine: Any = None,
        pool: PoolSettings | None = None,
        table: str = "agentry_openai_responses",
    ) -> None:
        if not table.replace("_", "").isalnum():
            raise ValueError(f"table name {table!r} must be letters, digits and underscores")
        super().__init__(
            sa.Table(
                table,
                sa.MetaData(),
                sa.Column("response_id", sa.String(64), primary_key=True),
                sa.Column("record", sa.Text, nullable=False),
            ),
            url=url,
            engine=engine,
            pool=pool,
            open_error=lambda error: HistoryStoreError(
                f"cannot open the response table {table!r}: {error}"
            ),
        )

    async def get(self, response_id: str) -> StoredResponse | None:
        """The response stored as `response_id`, or None.

        Raises:
            HistoryStoreError: The database cannot be read.
        """
        table = self.table
        engine = await self._engine()
        query = sa.select(table.c.record).where(table.c.response_id == response_id)
        try:
            async with engine.connect() as connection:
                text = (await connection.execute(query)).scalar_one_or_none()
        except SQLAlchemyError as error:
            raise HistoryStoreError(f"cannot read response {response_id!r}: {error}") from error
        return None if text is None else StoredResponse.from_json(response_id, str(text))

    async def put(self, response: StoredResponse) -> None:
        """Store `response`.

        Raises:
            HistoryStoreError: The database cannot be written.
        """
        engine = await self._engine()
        row = {"response_id": response.id, "record": response.to_json()}
        try:
            async with engine.begin() as connection:
                await connection.execute(self.table.insert().values(row))
        except SQLAlchemyError as error:
            raise HistoryStoreError(f"cannot store response {response.id!r}: {error}") from error

    async def delete(self, response_id: str) -> bool:
        """Forget `response_id`; whether it was stored.

        Raises:
            HistoryStoreError: The database cannot be written.
        """
        table = self.table
        engine = await self._engine()
        try:
            async with engine.begin() as connection:
                deleted = await connection.execute(
                    table.delete().where(table.c.response_id == response_id)
                )
        except SQLAlchemyError as error:
            raise HistoryStoreError(f"cannot delete response {response_id!r}: {error}") from error
        return deleted.rowcount > 0
