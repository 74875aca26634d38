"""The a2a-proof behaviour contracts, run against the server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import BINDINGS, serve
from .demo_agent import build

proof_config = pytest.importorskip(
    "a2a_proof.config", reason="a2a-proof needs Python 3.11+ (install the test extra)"
)
proof_runner = pytest.importorskip("a2a_proof.runner")
proof_session = pytest.importorskip("a2a_proof.a2a")

pytestmark = pytest.mark.timeout(90)

CONTRACT = Path(__file__).parent / "contracts" / "a2a-proof.yaml"


@pytest.fixture
def proof_http_clients(monkeypatch: pytest.MonkeyPatch) -> list[httpx.AsyncClient]:
    """The httpx clients a2a-proof makes, kept to be closed: it hands them to a2a-sdk as
    shared clients, which a2a-sdk leaves to their maker, and does not close them itself
    (their keep-alive connections to the server would stay open)."""
    made: list[httpx.AsyncClient] = []
    make = proof_session._http_client

    def keep(config: Any, *, trust_env: bool = True) -> httpx.AsyncClient:
        made.append(make(config, trust_env=trust_env))
        return made[-1]

    monkeypatch.setattr(proof_session, "_http_client", keep)
    return made


@pytest.mark.parametrize("binding", BINDINGS)
async def test_a2a_proof_contracts_pass(
    binding: str, proof_http_clients: list[httpx.AsyncClient]
) -> None:
    async with serve(build()) as server:
        config = proof_config.load_config(
            CONTRACT, environ={"A2A_URL": server.url, "A2A_TRANSPORT": binding}
        )
        try:
            result = await proof_runner.run(config, _trust_env=False)
        finally:
            for client in proof_http_clients:
                await client.aclose()
    failures = [
        (scenario.name, trial.error, [t.failures for t in trial.turns])
        for scenario in result.scenarios
        for trial in scenario.trials
        if not trial.passed
    ]
    assert proof_http_clients  # a2a-proof still makes them where the fixture catches them
    assert result.card is not None
    assert result.card.passed, result.card.failures
    assert failures == []
    assert result.passed
    assert len(result.scenarios) == 6
