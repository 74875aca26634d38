"""Graph workflows: executors joined by typed edges, run in supersteps.

Build a graph with `WorkflowBuilder`, run it with `await workflow.run(input)` or stream
its events with `workflow.run(input, stream=True)`. Executors are `Executor` subclasses
with `@handler` methods, functions decorated with `@executor`, agents, or other workflows.
Runs can ask people for input (`ctx.request_info`), and save checkpoints to resume from.

Example:
    >>> import asyncio
    >>> from agentry.workflows import WorkflowBuilder, WorkflowContext, executor
    >>> @executor
    ... async def double(n: int, ctx: WorkflowContext[int]) -> None:
    ...     await ctx.send_message(n * 2)
    >>> @executor
    ... async def report(n: int, ctx: WorkflowContext[None, str]) -> None:
    ...     await ctx.yield_output(f"result: {n}")
    >>> workflow = WorkflowBuilder(start_executor=double).add_edge(double, report).build()
    >>> asyncio.run(workflow.run(21)).get_outputs()
    ['result: 42']
"""

from typing import TYPE_CHECKING

from agentry.workflows._agent_executor import (
    AgentExecutor,
    AgentExecutorRequest,
    AgentExecutorResponse,
)
from agentry.workflows._builder import WorkflowBuilder
from agentry.workflows._checkpoint import (
    CheckpointStorage,
    InMemoryCheckpointStorage,
    WorkflowCheckpoint,
)
from agentry.workflows._context import RunHooks, WorkflowContext
from agentry.workflows._edges import (
    Case,
    Default,
    Edge,
    EdgeCondition,
    EdgeGroup,
    FanInEdgeGroup,
    FanOutEdgeGroup,
    SingleEdgeGroup,
    SwitchCaseEdgeGroup,
    SwitchCaseEdgeGroupCase,
    SwitchCaseEdgeGroupDefault,
)
from agentry.workflows._encoding import CheckpointTypeRegistry, register_checkpoint_type
from agentry.workflows._errors import (
    EdgeDuplicationError,
    ExecutorFailedException,
    GraphConnectivityError,
    TypeCompatibilityError,
    WorkflowCheckpointException,
    WorkflowConvergenceException,
    WorkflowException,
    WorkflowRunnerException,
    WorkflowValidationError,
)
from agentry.workflows._events import (
    WorkflowErrorDetails,
    WorkflowEvent,
    WorkflowEventType,
    WorkflowRunState,
)
from agentry.workflows._executor import Executor
from agentry.workflows._file_checkpoint import FileCheckpointStorage
from agentry.workflows._function_executor import FunctionExecutor, executor
from agentry.workflows._handlers import handler, response_handler
from agentry.workflows._invocation import ExecutorInvoker, Invocation
from agentry.workflows._result import WorkflowRunResult
from agentry.workflows._sqlite_checkpoint import SQLiteCheckpointStorage
from agentry.workflows._sub_workflow import WorkflowExecutor
from agentry.workflows._validation import validate_workflow_graph
from agentry.workflows._viz import WorkflowViz
from agentry.workflows._workflow import DEFAULT_MAX_ITERATIONS, Workflow, WorkflowRunOptions
from agentry.workflows._workflow_agent import WorkflowAgent
from agentry.workflows._workflow_run import WorkflowRun

if TYPE_CHECKING:
    from agentry.workflows._sql_checkpoint import SQLCheckpointStorage

__all__ = [
    "DEFAULT_MAX_ITERATIONS",
    "AgentExecutor",
    "AgentExecutorRequest",
    "AgentExecutorResponse",
    "Case",
    "CheckpointStorage",
    "CheckpointTypeRegistry",
    "Default",
    "Edge",
    "EdgeCondition",
    "EdgeDuplicationError",
    "EdgeGroup",
    "Executor",
    "ExecutorFailedException",
    "ExecutorInvoker",
    "FanInEdgeGroup",
    "FanOutEdgeGroup",
    "FileCheckpointStorage",
    "FunctionExecutor",
    "GraphConnectivityError",
    "InMemoryCheckpointStorage",
    "Invocation",
    "RunHooks",
    "SQLCheckpointStorage",
    "SQLiteCheckpointStorage",
    "SingleEdgeGroup",
    "SwitchCaseEdgeGroup",
    "SwitchCaseEdgeGroupCase",
    "SwitchCaseEdgeGroupDefault",
    "TypeCompatibilityError",
    "Workflow",
    "WorkflowAgent",
    "WorkflowBuilder",
    "WorkflowCheckpoint",
    "WorkflowCheckpointException",
    "WorkflowContext",
    "WorkflowConvergenceException",
    "WorkflowErrorDetails",
    "WorkflowEvent",
    "WorkflowEventType",
    "WorkflowException",
    "WorkflowExecutor",
    "WorkflowRun",
    "WorkflowRunOptions",
    "WorkflowRunResult",
    "WorkflowRunState",
    "WorkflowRunnerException",
    "WorkflowValidationError",
    "WorkflowViz",
    "executor",
    "handler",
    "register_checkpoint_type",
    "response_handler",
    "validate_workflow_graph",
]


def __getattr__(name: str) -> object:
    # SQLAlchemy loads with the SQL storage only, so importing workflows stays light.
    if name == "SQLCheckpointStorage":
        from agentry.workflows._sql_checkpoint import SQLCheckpointStorage

        return SQLCheckpointStorage
    raise AttributeError(f"module 'agentry.workflows' has no attribute {name!r}")
