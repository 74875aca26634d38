"""The a2a-proof behaviour contracts, run against the server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import BINDINGS, serve
from .demo_agent import build

proof_config = pytest.importorskip(
    "a2a_proof.config", reason="a2a-proof needs Python 3.11+ (install the test extra)"
)
proof_runner = pytest.importorskip("a2a_proof.runner")

pytestmark = pytest.mark.timeout(90)

CONTRACT = Path(__file__).parent / "contracts" / "a2a-proof.yaml"


@pytest.mark.parametrize("binding", BINDINGS)
async def test_a2a_proof_contracts_pass(binding: str) -> None:
    async with serve(build()) as server:
        config = proof_config.load_config(
            CONTRACT, environ={"A2A_URL": server.url, "A2A_TRANSPORT": binding}
        )
        result = await proof_runner.run(config, _trust_env=False)
    failures = [
        (scenario.name, trial.error, [t.failures for t in trial.turns])
        for scenario in result.scenarios
        for trial in scenario.trials
        if not trial.passed
    ]
    assert result.card is not None
    assert result.card.passed, result.card.failures
    assert failures == []
    assert result.passed
    assert len(result.scenarios) == 6
