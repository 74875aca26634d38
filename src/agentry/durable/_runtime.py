"""`DurableRuntime`: workflows run on DBOS, with SQLite or PostgreSQL underneath."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Callable, Collection, Coroutine
from typing import TYPE_CHECKING, Any, NamedTuple

from dbos import DBOS, DBOSClient, DBOSConfig, EnqueueOptions, SetWorkflowID
from dbos._error import DBOSNonExistentWorkflowError
from sqlalchemy.exc import DBAPIError

from agentry.durable._agent_run_handle import DurableAgentRun
from agentry.durable._dbos_steps import HANDLER_QUEUE
from agentry.durable._durable_agent import AGENT_FUNCTION, agent_fingerprint, durable_agent_run
from agentry.durable._durable_workflow import (
    RUNS_QUEUE,
    WORKFLOW_FUNCTION,
    durable_workflow,
    set_workflow_source,
)
from agentry.durable._errors import DurableRunError
from agentry.durable._run_handle import DurableRun
from agentry.durable._serializer import JSONSerializer
from agentry.durable._takeover import WorkerWatch
from agentry.storage import PoolSettings, default_database_url
from agentry.storage import database_url as storage_database_url
from agentry.types import AgentRunInputs, normalize_messages
from agentry.workflows import CheckpointTypeRegistry, Workflow, WorkflowRun

if TYPE_CHECKING:
    from types import TracebackType

    from dbos import WorkflowHandleAsync

    from agentry.agents import Agent

__all__ = ["DATABASE_URL_ENV", "DEFAULT_DATABASE_URL", "DurableRuntime", "WorkflowFactory"]

DATABASE_URL_ENV = "AGENTRY_DURABLE_DATABASE_URL"
"""The environment variable that names the database when none is passed."""
DEFAULT_DATABASE_URL = "sqlite:///agentry-durable.sqlite"
"""The embedded default: a SQLite file in the current directory."""

APP_NAME = "agentry"
"""The DBOS application agentry's runs, queues and clients belong to."""

WorkflowFactory = Callable[[], Workflow]
"""A function that builds a workflow; each durable run gets its own instance."""

_launched: DurableRuntime | None = None


class _Registered(NamedTuple):
    factory: WorkflowFactory
    graph_signature: str
    distributed: frozenset[str]
    template: Workflow
    """An instance that never runs: for checking and encoding the workflow's values."""


def database_url_of(database: str | os.PathLike[str] | None) -> str:
    """The DBOS URL for `database`: a URL as is, a file path as a SQLite URL, and None as
    `$AGENTRY_DURABLE_DATABASE_URL`, else `$AGENTRY_DATABASE_URL`, else the embedded
    default."""
    if database is None:
        return os.environ.get(DATABASE_URL_ENV) or default_database_url() or DEFAULT_DATABASE_URL
    return storage_database_url(database)


def _dbos_pool_options(pool: PoolSettings) -> dict[str, object]:
    return {
        "pool_size": pool.size,
        "max_overflow": pool.max_overflow,
        "pool_timeout": pool.timeout,
        "pool_recycle": -1 if pool.recycle is None else int(pool.recycle),
        "pool_pre_ping": True,  # DBOS's own choice: its workers outlive server restarts
    }


class DurableRuntime:
    """Runs workflows durably on DBOS: each handler call is a recorded step, so a run
    whose process dies resumes from its last completed step, on this or another worker.

    The database is one setting: a SQLite file by default (no server needed), or a
    PostgreSQL URL for several workers on several machines. Register the workflows (as
    functions that build them) in every process. A launched runtime is a worker: it runs
    the runs it starts and those queued by others, and resumes the runs it left
    unfinished; one runtime per process can be launched. A runtime that is not launched
    is a client: it queues runs, reads them and answers their requests.

    Args:
        database: A database URL (`sqlite:///runs.sqlite`, `postgresql://host/db`) or a
            SQLite file path; default `$AGENTRY_DURABLE_DATABASE_URL`, else
            `$AGENTRY_DATABASE_URL` (the setting all stores share), else
            `agentry-durable.sqlite` in the current directory.
        worker_id: This worker's id; a restarted worker with the same id resumes the runs
            it left (default: `local`).
        handler_concurrency: How many calls of distributed executors this worker runs at
            once (default: no limit).
        run_concurrency: How many queued runs (started by clients) this worker runs at
            once, waiting runs included (default: no limit, so that the first worker to
            look takes every queued run; set it for several workers to share a burst).
        takeover_after: Seconds after which the runs of a worker that stopped (its
            heartbeat went silent) are taken over by the live workers; None never takes
            over (the worker's own restart resumes them).
        app_version: The version of this app's workflows (default: derived from
            agentry's version and the registered workflows' graphs and agents). A worker
            resumes and takes over only runs of its own version, so runs started before a
            change of graph wait for a worker of their version instead of failing.
        pool: The connection pool of DBOS's database engine (default: DBOS's own, 20
            connections with no overflow).

    Example:
        >>> from agentry.workflows import WorkflowBuilder, WorkflowContext, executor
        >>> @executor
        ... async def shout(text: str, ctx: WorkflowContext[None, str]) -> None:
        ...     await ctx.yield_output(text.upper())
        >>> def build_shouter():
        ...     return WorkflowBuilder(name="shouter", start_executor=shout).build()
        >>> runtime = DurableRuntime("sqlite:///runs.sqlite")
        >>> runtime.register(build_shouter)
        'shouter'
        >>> async def main():
        ...     async with runtime:
        ...         run = await runtime.start("shouter", "hi")
        ...         return (await run.result()).get_outputs()
    """

    def __init__(
        self,
        database: str | os.PathLike[str] | None = None,
        *,
        worker_id: str | None = None,
        handler_concurrency: int | None = None,
        run_concurrency: int | None = None,
        takeover_after: float | None = 60.0,
        app_version: str | None = None,
        pool: PoolSettings | None = None,
    ) -> None:
        self.database_url = database_url_of(database)
        self.pool = pool
        self.worker_id = worker_id
        self.handler_concurrency = handler_concurrency
        self.run_concurrency = run_concurrency
        self.takeover_after = takeover_after
        self._app_version = app_version
        self._watch: WorkerWatch | None = None
        self._factories: dict[str, _Registered] = {}
        self._agents: dict[str, Agent] = {}
        self._client_instance: DBOSClient | None = None
        self._launched = False

    # region workflows

    def register(self, factory: WorkflowFactory, *, distributed: Collection[str] = ()) -> str:
        """Make a workflow runnable (and recoverable) here; its name.

        Args:
            factory: A function that builds the workflow. It is called once now, and once
                for each run (and each distributed call) this process executes, so runs
                do not share executors.
            distributed: Ids of executors whose calls go through a queue that every
                worker takes from: the calls of one superstep run at once, spread over
                the workers. Such an executor sees its own state as it was when the
                superstep began (keep per-call data in messages or shared state).

        Raises:
            TypeError: `factory` is a workflow instance, or does not build a workflow.
            DurableRunError: Another workflow of the same name is registered, or
                `distributed` names an executor the workflow does not have.
        """
        if isinstance(factory, Workflow):
            raise TypeError(
                "register() takes a function that builds the workflow, not a workflow: "
                "each durable run gets its own executors (write `def build(): return "
                "WorkflowBuilder(...).build()` and pass `build`)"
            )
        workflow = factory()
        if not isinstance(workflow, Workflow):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"{factory!r} returned a {type(workflow).__name__}, not a Workflow")
        known = self._factories.get(workflow.name)
        if known is not None and known.factory is not factory:
            raise DurableRunError(
                f"a workflow named {workflow.name!r} is registered already; give each "
                "durable workflow its own name (WorkflowBuilder(name=...))"
            )
        unknown = sorted(set(distributed) - set(workflow.executors))
        if unknown:
            raise DurableRunError(
                f"workflow {workflow.name!r} has no executors {unknown} to distribute "
                f"(its executors: {sorted(workflow.executors)})"
            )
        self._factories[workflow.name] = _Registered(
            factory, workflow.graph_signature, frozenset(distributed), workflow
        )
        return workflow.name

    def register_agent(self, agent: Agent) -> str:
        """Make an agent's runs durable here (`start_agent`); its name.

        In a durable agent run, each model call and each tool call is a recorded step: a
        run whose process dies resumes without calling the model again for a completed
        call, nor a completed tool. The agent is shared by its runs (as `agent.run` is).

        Raises:
            DurableRunError: The agent has no name, or another agent has its name.
        """
        name = agent.name
        if not name:
            raise DurableRunError("a durable agent needs a name: Agent(..., name='support')")
        known = self._agents.get(name)
        if known is not None and known is not agent:
            raise DurableRunError(f"an agent named {name!r} is registered already")
        self._agents[name] = agent
        return name

    def agent(self, agent_name: str, fingerprint: str | None = None) -> Agent:
        """A registered agent.

        Args:
            agent_name: The agent's name.
            fingerprint: The agent's fingerprint when a run started (its tools); the
                agent registered now must have the same.

        Raises:
            DurableRunError: No agent of this name is registered, or its tools changed.
        """
        agent = self._agents.get(agent_name)
        if agent is None:
            raise DurableRunError(
                f"no agent named {agent_name!r} is registered in this process (registered: "
                f"{sorted(self._agents) or 'none'}); register it with register_agent() in "
                "every worker and client"
            )
        if fingerprint is not None and fingerprint != agent_fingerprint(agent):
            raise DurableRunError(
                f"the run was started with another version of agent {agent_name!r} (its "
                "tools differ from this process's); finish it with a worker that runs the "
                "version it started with"
            )
        return agent

    @property
    def app_version(self) -> str:
        """The version of this app's workflows (see the `app_version` argument)."""
        if self._app_version is not None:
            return self._app_version
        import agentry

        shape = {
            "agentry": agentry.__version__,
            "workflows": sorted((n, r.graph_signature) for n, r in self._factories.items()),
            "agents": sorted(agent_fingerprint(a) for a in self._agents.values()),
        }
        digest = hashlib.sha256(json.dumps(shape).encode()).hexdigest()[:16]
        return f"agentry-{digest}"

    @property
    def workflow_names(self) -> list[str]:
        """The names of the registered workflows."""
        return sorted(self._factories)

    @property
    def safe_database_url(self) -> str:
        """The database URL with its password hidden, for logs."""
        from sqlalchemy import make_url

        return make_url(self.database_url).render_as_string(hide_password=True)

    def build(self, workflow_name: str, graph_signature: str | None = None) -> Workflow:
        """A new instance of a registered workflow.

        Args:
            workflow_name: The workflow's name.
            graph_signature: The graph a run was started with; the workflow built now must
                have the same.

        Raises:
            DurableRunError: No such workflow is registered, or its graph changed.
        """
        return self._registered(workflow_name, graph_signature).factory()

    def template(self, workflow_name: str, graph_signature: str | None = None) -> Workflow:
        """The instance of a registered workflow that never runs: to check inputs and
        answers, and to encode and decode the run's values.

        Raises:
            DurableRunError: No such workflow is registered, or its graph changed.
        """
        return self._registered(workflow_name, graph_signature).template

    def _registered(self, workflow_name: str, graph_signature: str | None) -> _Registered:
        known = self._factories.get(workflow_name)
        if known is None:
            raise DurableRunError(
                f"no workflow named {workflow_name!r} is registered in this process "
                f"(registered: {sorted(self._factories) or 'none'}); register its factory "
                "with DurableRuntime.register() in every worker and client"
            )
        if graph_signature is not None and graph_signature != known.graph_signature:
            raise DurableRunError(
                f"the run was started with another version of workflow {workflow_name!r} "
                "(its executors or edges differ from this process's); finish it with a "
                "worker that runs the version it started with"
            )
        return known

    def distributed_executors(self, workflow_name: str) -> frozenset[str]:
        """The executors of a registered workflow whose calls go through the queue."""
        known = self._factories.get(workflow_name)
        return known.distributed if known is not None else frozenset()

    # endregion

    # region lifecycle

    async def launch(self) -> None:
        """Connect to the database (creating DBOS's tables if needed), start executing
        runs (those started here, and those clients queued), and resume this worker's
        unfinished ones.

        Raises:
            DurableRunError: Another runtime is launched in this process.
        """
        global _launched
        if self._launched:
            return
        if _launched is not None:
            raise DurableRunError(
                "another DurableRuntime is launched in this process; shut it down first "
                "(DBOS runs one runtime per process)"
            )
        config: DBOSConfig = {
            "name": APP_NAME,
            "system_database_url": self.database_url,
            "serializer": JSONSerializer(),
            "log_level": os.environ.get("AGENTRY_DURABLE_LOG_LEVEL", "WARNING"),
            "application_version": self.app_version,
        }
        self._app_version = config["application_version"]  # later registrations keep it
        if self.worker_id is not None:
            config["executor_id"] = self.worker_id
        if self.pool is not None:
            config["db_engine_kwargs"] = _dbos_pool_options(self.pool)
        set_workflow_source(self)
        _launched = self
        try:
            DBOS(config=config)
            DBOS.launch()
            await DBOS.register_queue_async(RUNS_QUEUE, worker_concurrency=self.run_concurrency)
            await DBOS.register_queue_async(
                HANDLER_QUEUE, worker_concurrency=self.handler_concurrency
            )
            if self.takeover_after is not None:
                watch = WorkerWatch(
                    self.database_url, self.worker_id or "local", self.takeover_after
                )
                await asyncio.to_thread(watch.start)
                self._watch = watch
        except BaseException:
            _launched = None
            set_workflow_source(None)
            DBOS.destroy()
            raise
        self._launched = True

    def shutdown(self) -> None:
        """Stop executing runs (they stay stored, and resume at the next launch), and
        close the database connections."""
        global _launched
        if self._client_instance is not None:
            self._client_instance.destroy()
            self._client_instance = None
        if not self._launched:
            return
        self._launched = False
        _launched = None
        if self._watch is not None:
            self._watch.stop()
            self._watch = None
        set_workflow_source(None)
        DBOS.destroy()

    async def __aenter__(self) -> DurableRuntime:
        await self.launch()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.shutdown()

    # endregion

    # region runs

    async def start(
        self, workflow_name: str, message: object, *, run_id: str | None = None
    ) -> DurableRun:
        """Start a durable run; a handle to it.

        A launched runtime runs it in this process. One that is not launched queues it,
        and a launched worker on the same database takes it. Starting again with the
        `run_id` of an existing run returns that run.

        Raises:
            DurableRunError: The workflow is not registered here.
            WorkflowRunnerException: The workflow's start executor cannot take `message`.
            WorkflowCheckpointException: `message` holds a type the workflow cannot store.
        """
        workflow = self.template(workflow_name)
        WorkflowRun(workflow, message)  # refuses an input the start executor cannot take
        arguments = (
            workflow_name,
            workflow.graph_signature,
            workflow.type_registry.encode(message),
        )
        run_id, handle = await self._start(WORKFLOW_FUNCTION, durable_workflow, arguments, run_id)
        return DurableRun(self, run_id, handle=handle, workflow=workflow)

    async def _start(
        self,
        function_name: str,
        function: Callable[..., Coroutine[Any, Any, dict[str, Any]]],
        arguments: tuple[Any, ...],
        run_id: str | None,
    ) -> tuple[str, WorkflowHandleAsync[Any] | None]:
        """Start (launched) or queue (not launched) a DBOS workflow; its id, and the
        handle to its task when it runs here."""
        if run_id is not None:
            await self._check_same_run(run_id, function_name, arguments[:2])
        if not self._launched:
            options: EnqueueOptions = {"queue_name": RUNS_QUEUE, "workflow_name": function_name}
            if run_id is not None:
                options["workflow_id"] = run_id
            try:
                queued: Any = await self.client().enqueue_async(options, *arguments)
            except DBAPIError as error:
                raise self.unreadable(error) from error
            return str(queued.get_workflow_id()), None
        if run_id is None:
            handle = await DBOS.start_workflow_async(function, *arguments)
        else:
            with SetWorkflowID(run_id):
                handle = await DBOS.start_workflow_async(function, *arguments)
        return handle.get_workflow_id(), handle

    async def _check_same_run(
        self, run_id: str, function_name: str, identity: tuple[Any, ...]
    ) -> None:
        """Refuse to start a run under the id of an existing run of another workflow or
        agent, or of another version of it (its name and fingerprint differ)."""
        try:
            handle: WorkflowHandleAsync[Any] = await self.client().retrieve_workflow_async(run_id)
        except DBOSNonExistentWorkflowError:
            return
        except DBAPIError as error:
            raise self.unreadable(error) from error
        status = await handle.get_status()
        started_with = tuple(status.input["args"][: len(identity)]) if status.input else ()
        if status.name == function_name and started_with == identity:
            return
        raise DurableRunError(
            f"a run with id {run_id!r} exists already, started with another workflow or "
            "agent, or another version of it (its name or fingerprint differs); start this "
            "one under another run id"
        )

    async def start_agent(
        self, agent_name: str, messages: AgentRunInputs, *, run_id: str | None = None
    ) -> DurableAgentRun:
        """Start a durable run of a registered agent on `messages`; a handle to it.

        As with `start`, a launched runtime runs it here and one that is not launched
        queues it for a worker; an existing `run_id` returns that run. When the model
        calls a tool that needs approval, the run waits durably for the answers
        (`DurableAgentRun.send_response`, from any process), then goes on.

        Raises:
            DurableRunError: The agent is not registered here.
            WorkflowCheckpointException: The messages hold a type that cannot be stored.
        """
        fingerprint = agent_fingerprint(self.agent(agent_name))
        encoded = CheckpointTypeRegistry().encode(normalize_messages(messages))
        run_id, handle = await self._start(
            AGENT_FUNCTION, durable_agent_run, (agent_name, fingerprint, encoded), run_id
        )
        return DurableAgentRun(self, run_id, handle=handle)

    def agent_run(self, run_id: str) -> DurableAgentRun:
        """A handle to an agent run (started by any process on this database).

        Its methods raise `DurableRunError` when there is no agent run of this id."""
        return DurableAgentRun(self, run_id)

    async def find(self, run_id: str) -> DurableRun | DurableAgentRun:
        """A handle to the run of this id, whichever kind it is (workflow or agent run).

        Raises:
            DurableRunError: There is no durable run with this id.
        """
        status = await DurableRun(self, run_id).status_record()
        if status.name == AGENT_FUNCTION:
            return DurableAgentRun(self, run_id)
        return DurableRun(self, run_id)

    def run(self, run_id: str) -> DurableRun:
        """A handle to a workflow run (started by any process on this database).

        Its methods raise `DurableRunError` when there is no workflow run of this id."""
        return DurableRun(self, run_id)

    def client(self) -> DBOSClient:
        """The DBOS client this runtime reads and answers runs with (works unlaunched)."""
        if self._client_instance is None:
            self._client_instance = DBOSClient(
                system_database_url=self.database_url,
                serializer=JSONSerializer(),
                application_name=APP_NAME,
            )
        return self._client_instance

    def unreadable(self, error: DBAPIError) -> DurableRunError:
        """The error to raise when the database cannot be read as a durable database."""
        return DurableRunError(
            f"cannot use {self.safe_database_url} as a durable database ({error.orig}); has "
            "a worker been launched on this database? (a launch creates its tables)"
        )

    # endregion
