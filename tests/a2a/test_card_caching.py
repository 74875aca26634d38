"""Cache headers of the agent card: `Cache-Control`, `Last-Modified`, `ETag`, and 304s."""

from __future__ import annotations

from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

import httpx
import pytest
from a2a.client import A2ACardResolver

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient

from .conftest import serve

pytestmark = pytest.mark.timeout(30)

CARD = "/.well-known/agent-card.json"


def agent() -> Agent:
    return Agent(client=ScriptedChatClient([]), name="cached", description="Is cached.")


async def test_card_is_served_with_cache_headers_by_default() -> None:
    before = datetime.now(timezone.utc).replace(microsecond=0)
    async with serve(agent()) as server, httpx.AsyncClient(base_url=server.url) as http:
        response = await http.get(CARD)
        card = await A2ACardResolver(http, server.url).get_agent_card()
    assert response.status_code == 200
    assert response.headers["cache-control"] == "public, max-age=300"
    assert response.headers["etag"].startswith('W/"')
    assert parsedate_to_datetime(response.headers["last-modified"]) >= before
    assert card.name == "cached"


async def test_cache_headers_are_configurable() -> None:
    changed = datetime(2026, 1, 2, 3, 4, 5, 678, tzinfo=timezone.utc)
    async with (
        serve(agent(), card_cache_control="no-cache", card_last_modified=changed) as server,
        httpx.AsyncClient(base_url=server.url) as http,
    ):
        response = await http.get(CARD)
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["last-modified"] == "Fri, 02 Jan 2026 03:04:05 GMT"
    async with (
        serve(agent(), card_cache_control=None) as server,
        httpx.AsyncClient(base_url=server.url) as http,
    ):
        uncached = await http.get(CARD)
    assert "cache-control" not in uncached.headers
    assert "last-modified" in uncached.headers


async def test_an_unchanged_card_is_answered_not_modified() -> None:
    changed = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    async with (
        serve(agent(), card_last_modified=changed) as server,
        httpx.AsyncClient(base_url=server.url) as http,
    ):
        first = await http.get(CARD)
        same_time = await http.get(
            CARD, headers={"If-Modified-Since": first.headers["last-modified"]}
        )
        older = await http.get(CARD, headers={"If-Modified-Since": "Thu, 01 Jan 2026 00:00:00 GMT"})
        same_tag = await http.get(CARD, headers={"If-None-Match": first.headers["etag"]})
        other_tag = await http.get(
            CARD,
            headers={
                "If-None-Match": 'W/"other"',
                "If-Modified-Since": first.headers["last-modified"],
            },
        )
    assert same_time.status_code == 304
    assert same_time.content == b""
    assert same_time.headers["etag"] == first.headers["etag"]
    assert same_time.headers["last-modified"] == first.headers["last-modified"]
    assert older.status_code == 200
    assert older.json()["name"] == "cached"
    assert same_tag.status_code == 304
    assert other_tag.status_code == 200  # the ETag decides when both are sent
