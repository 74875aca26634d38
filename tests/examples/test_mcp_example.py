"""The MCP example starts its server, lists its tools, uses its prompt and calls its tool."""

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_mcp_tools_example() -> None:
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / "mcp_tools.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == [
        "tools: ['get_forecast']",
        "prompt: What should I pack for a trip to Oslo? Check the forecast first.",
        "forecast: snow, -3 °C",
        "Snow in Oslo: pack a warm coat, boots and gloves.",
    ]
