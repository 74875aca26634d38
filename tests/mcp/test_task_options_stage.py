"""`MCPTaskOptions` is experimental in a way code can see: a feature marker and a warning."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from agentry.features import ExperimentalFeature, experimental_feature
from agentry.mcp import MCPStdioTool, MCPTaskOptions

SRC = str(Path(__file__).resolve().parents[2] / "src")


def run_fresh(code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a new interpreter (the warning is emitted once per process)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
        check=False,
    )


def test_task_options_carry_the_feature_marker() -> None:
    assert experimental_feature(MCPTaskOptions) is ExperimentalFeature.MCP_LONG_RUNNING_TASKS
    assert experimental_feature(MCPTaskOptions()) is ExperimentalFeature.MCP_LONG_RUNNING_TASKS
    assert experimental_feature(MCPStdioTool) is None


def test_creating_task_options_warns_once_at_the_callers_line() -> None:
    result = run_fresh(
        """
        import json, sys, warnings
        from datetime import timedelta

        warnings.simplefilter("always")
        with warnings.catch_warnings(record=True) as caught:
            from agentry.mcp import MCPStdioTool, MCPTaskOptions

            MCPStdioTool("plain", sys.executable)  # a tool without task options: no warning
            MCPTaskOptions()  # line 10
            MCPTaskOptions(max_task_wait=timedelta(minutes=5))
        print(json.dumps([[w.category.__name__, str(w.message), w.lineno] for w in caught]))
        """
    )

    assert result.returncode == 0, result.stderr
    (warning,) = json.loads(result.stdout)
    assert warning[0] == "ExperimentalWarning"
    assert warning[1].startswith("MCP_LONG_RUNNING_TASKS is experimental")
    assert warning[2] == 10


def test_the_warning_can_be_filtered_by_the_features_id() -> None:
    result = run_fresh(
        """
        import warnings
        from agentry.errors import ExperimentalWarning

        warnings.filterwarnings("error", message="MCP_LONG_RUNNING_TASKS")
        from agentry.mcp import MCPTaskOptions
        try:
            MCPTaskOptions()
        except ExperimentalWarning as warning:
            print("raised:", warning)
        """
    )

    assert result.stdout.startswith("raised: MCP_LONG_RUNNING_TASKS is experimental")
