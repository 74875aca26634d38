"""`MCPTaskOptions`: how an `MCPTool` runs tool calls that a server turns into tasks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from agentry.features import ExperimentalFeature, experimental

__all__ = ["MCPTaskOptions"]


@experimental(ExperimentalFeature.MCP_LONG_RUNNING_TASKS)
@dataclass(frozen=True)
class MCPTaskOptions:
    """Options for long-running MCP tasks.

    Experimental (feature `MCP_LONG_RUNNING_TASKS`): creating options emits an
    `agentry.errors.ExperimentalWarning` once per process, and the API may change in a
    minor release.

    A server may run a tool call as a task: it answers with a task id at once, and the
    client polls until the task ends, then returns the task's result as the tool's result.
    Options are immutable; give a tool new ones with `tool.task_options = MCPTaskOptions(...)`.

    Attributes:
        default_ttl: How long the server should keep the task (sent as the task's `ttl`
            on servers of the 2025-11-25 design). None leaves it to the server.
        cancel_remote_task_on_local_cancellation: When the call is cancelled here (the
            run was stopped), also cancel the task on the server. A task the client gives
            up on for any other reason while it may still run (waited too long,
            connection lost twice, nonsense answers, a declined question) is always
            cancelled; one that already ended on the server is not.
        max_task_wait: The longest the client waits for a task once it exists (polling,
            reconnecting and fetching the result): a deadline. When it passes, the call
            fails at once and the task is cancelled on the server in the background (the
            tool's `close()` waits for that cancel). None waits as long as the server
            keeps the task running.

    Example:
        >>> from datetime import timedelta
        >>> options = MCPTaskOptions(max_task_wait=timedelta(minutes=10))
    """

    default_ttl: timedelta | None = None
    cancel_remote_task_on_local_cancellation: bool = True
    max_task_wait: timedelta | None = None

    def __post_init__(self) -> None:
        for field in ("default_ttl", "max_task_wait"):
            value = getattr(self, field)
            if value is None:
                continue
            if not isinstance(value, timedelta):
                raise TypeError(
                    f"MCPTaskOptions.{field} must be a datetime.timedelta or None, "
                    f"not {type(value).__name__}"
                )
            if value <= timedelta(0):
                raise ValueError(f"MCPTaskOptions.{field} must be positive, not {value}")

    @property
    def ttl_milliseconds(self) -> int | None:
        """`default_ttl` in whole milliseconds, as the wire carries it."""
        if self.default_ttl is None:
            return None
        return max(1, round(self.default_ttl.total_seconds() * 1000))

    @property
    def max_wait_seconds(self) -> float | None:
        """`max_task_wait` in seconds."""
        return None if self.max_task_wait is None else self.max_task_wait.total_seconds()
