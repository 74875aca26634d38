from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from typing_extensions import Never

from agentry.workflows import (
    CheckpointStorage,
    Executor,
    FileCheckpointStorage,
    InMemoryCheckpointStorage,
    SQLCheckpointStorage,
    SQLiteCheckpointStorage,
    Workflow,
    WorkflowBuilder,
    WorkflowCheckpoint,
    WorkflowCheckpointException,
    WorkflowContext,
    WorkflowRunState,
    handler,
    response_handler,
)


@dataclass
class Job:
    name: str
    step: int = 0


class Counter(Executor):
    """Counts the jobs it has seen (executor state) and passes them on."""

    def __init__(self, id: str) -> None:
        super().__init__(id=id)
        self.seen = 0

    @handler
    async def count(self, job: Job, ctx: WorkflowContext[Job, str]) -> None:
        self.seen += 1
        ctx.set_state(f"{self.id}.last", job.name)
        await ctx.yield_output(f"{self.id}:{job.name}:{self.seen}")
        await ctx.send_message(Job(job.name, job.step + 1))

    async def on_checkpoint_save(self) -> dict[str, Any]:
        return {"seen": self.seen}

    async def on_checkpoint_restore(self, state: dict[str, Any]) -> None:
        self.seen = state["seen"]


class Joiner(Executor):
    @handler
    async def join(self, jobs: list[Job], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("joined:" + ",".join(f"{j.name}@{j.step}" for j in jobs))


def build(name: str = "pipeline") -> Workflow:
    """start -> (short, long1 -> long2) -> fan-in join: the join waits across supersteps."""
    start, short, long1, long2 = (
        Counter("start"),
        Counter("short"),
        Counter("long1"),
        Counter("long2"),
    )
    return (
        WorkflowBuilder(name=name, start_executor=start)
        .add_fan_out_edges(start, [short, long1])
        .add_edge(long1, long2)
        .add_fan_in_edges([short, long2], Joiner(id="join"))
        .build()
    )


SQL_URLS: dict[int, str] = {}
"""The database URL of each SQLCheckpointStorage the fixture made, by `id`."""


@pytest.fixture(params=["memory", "file", "sqlite", "sqlalchemy", "postgresql"])
async def storage(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[CheckpointStorage]:
    kind = request.param
    if kind == "memory":
        yield InMemoryCheckpointStorage()
    elif kind == "file":
        yield FileCheckpointStorage(tmp_path / "checkpoints")
    elif kind == "sqlite":
        sqlite = SQLiteCheckpointStorage(tmp_path / "checkpoints.db")
        yield sqlite
        await sqlite.close()
    else:
        url = (
            f"sqlite:///{tmp_path / 'checkpoints.db'}"
            if kind == "sqlalchemy"
            else str(request.getfixturevalue("postgres_url"))
        )
        sql = SQLCheckpointStorage(url)
        SQL_URLS[id(sql)] = url
        yield sql
        await sql.close()


EXPECTED_OUTPUTS = [
    "start:a:1",
    "short:a:1",
    "long1:a:1",
    "long2:a:1",
    "joined:a@2,a@3",
]


async def test_a_checkpoint_is_saved_at_every_superstep(storage: CheckpointStorage) -> None:
    workflow = build()
    result = await workflow.run(Job("a"), checkpoint_storage=storage)
    assert sorted(result.get_outputs()) == sorted(EXPECTED_OUTPUTS)
    checkpoints = await storage.list_checkpoints(workflow_name="pipeline")
    assert [c.iteration_count for c in checkpoints] == [1, 2, 3, 4]
    assert checkpoints[0].previous_checkpoint_id is None
    for previous, current in itertools.pairwise(checkpoints):
        assert current.previous_checkpoint_id == previous.checkpoint_id
    assert len({c.run_id for c in checkpoints}) == 1
    assert await storage.list_checkpoint_ids(workflow_name="pipeline") == [
        c.checkpoint_id for c in checkpoints
    ]
    latest = await storage.get_latest(workflow_name="pipeline")
    assert latest is not None
    assert latest.checkpoint_id == checkpoints[-1].checkpoint_id
    assert await storage.list_checkpoints(workflow_name="other") == []
    # Checkpoints are plain JSON.
    json.loads(checkpoints[1].to_json())


async def test_resuming_from_any_checkpoint_finishes_the_run_exactly_once(
    storage: CheckpointStorage,
) -> None:
    await build().run(Job("a"), checkpoint_storage=storage)
    checkpoint_ids = await storage.list_checkpoint_ids(workflow_name="pipeline")
    for checkpoint_id in checkpoint_ids:
        fresh = build()  # new executor instances, as in a new process
        resumed = await fresh.run(checkpoint_id=checkpoint_id, checkpoint_storage=storage)
        combined = resumed.restored_outputs + resumed.get_outputs()
        assert sorted(combined) == sorted(EXPECTED_OUTPUTS), checkpoint_id
        assert resumed.get_final_state() is WorkflowRunState.IDLE


async def test_a_restore_brings_back_executor_state_shared_state_and_fan_in(
    storage: CheckpointStorage,
) -> None:
    await build().run(Job("a"), checkpoint_storage=storage)
    second = (await storage.list_checkpoints(workflow_name="pipeline"))[1]
    # After superstep 2, the join holds what "short" sent and waits for "long2".
    assert list(second.fan_in) == ["fan_in:short,long2->join"]
    assert second.state["start.last"] == "a"
    assert second.executor_states["short"] == {"seen": 1}
    workflow = build()
    resumed = await workflow.run(checkpoint_id=second.checkpoint_id, checkpoint_storage=storage)
    start = workflow.executors["start"]
    assert isinstance(start, Counter)
    assert start.seen == 1
    assert resumed.get_outputs() == ["long2:a:1", "joined:a@2,a@3"]
    assert workflow.executors["long2"].seen == 1  # type: ignore[attr-defined]  # pyright: ignore[reportAttributeAccessIssue]


async def test_the_builder_storage_is_used_by_default(tmp_path: Path) -> None:
    storage = FileCheckpointStorage(tmp_path)
    start = Counter("start")
    workflow = WorkflowBuilder(start_executor=start).with_checkpointing(storage).build()
    await workflow.run(Job("x"))
    (checkpoint_id,) = await storage.list_checkpoint_ids(workflow_name="start")
    assert (
        await workflow.run(checkpoint_id=checkpoint_id)
    ).get_final_state() is WorkflowRunState.IDLE


class Approval(Executor):
    @handler
    async def ask(self, job: Job, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"asked:{job.name}")
        await ctx.request_info(job, bool)

    @response_handler
    async def answer(self, job: Job, approved: bool, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"{job.name}:{'approved' if approved else 'rejected'}")


def approval_workflow() -> Workflow:
    return WorkflowBuilder(name="approval", start_executor=Approval(id="approval")).build()


async def test_a_pending_request_survives_a_restore_and_is_answered_once(
    storage: CheckpointStorage,
) -> None:
    first = await approval_workflow().run(Job("deploy"), checkpoint_storage=storage)
    request_id = first.get_request_info_events()[0].request_id
    assert request_id is not None
    checkpoint = await storage.get_latest(workflow_name="approval")
    assert checkpoint is not None

    # Resumed without an answer, the request is announced again.
    pending = await approval_workflow().run(
        checkpoint_id=checkpoint.checkpoint_id, checkpoint_storage=storage
    )
    assert [e.request_id for e in pending.get_request_info_events()] == [request_id]
    assert pending.get_final_state() is WorkflowRunState.IDLE_WITH_PENDING_REQUESTS

    # Resumed with the answer, it is not announced again and the run finishes.
    answered = await approval_workflow().run(
        checkpoint_id=checkpoint.checkpoint_id,
        checkpoint_storage=storage,
        responses={request_id: True},
    )
    assert answered.restored_outputs == ["asked:deploy"]
    assert answered.get_outputs() == ["deploy:approved"]
    assert answered.get_request_info_events() == []
    assert answered.get_final_state() is WorkflowRunState.IDLE

    # The newest checkpoint holds no request any more: resuming from it asks nothing.
    newest = await storage.get_latest(workflow_name="approval")
    assert newest is not None
    assert newest.pending_requests == []
    after = await approval_workflow().run(
        checkpoint_id=newest.checkpoint_id, checkpoint_storage=storage
    )
    assert after.get_request_info_events() == []
    assert after.restored_outputs == ["asked:deploy", "deploy:approved"]


def corrupt(storage: CheckpointStorage, checkpoint_id: str, tmp_path: Path) -> None:
    """Damage one stored checkpoint in place."""
    garbage = '{"format": "agentry.workflow_checkpoint", "version": 1, "checkpoint_id": '
    if isinstance(storage, InMemoryCheckpointStorage):
        name, _ = storage.documents[checkpoint_id]
        storage.documents[checkpoint_id] = (name, garbage)
    elif isinstance(storage, FileCheckpointStorage):
        (storage.directory / f"{checkpoint_id}.json").write_text(garbage)
    elif isinstance(storage, SQLCheckpointStorage):
        engine = sqlalchemy.create_engine(
            SQL_URLS[id(storage)].replace("postgresql://", "postgresql+psycopg://")
        )
        with engine.begin() as connection:
            connection.execute(
                sqlalchemy.text(
                    "UPDATE agentry_workflow_checkpoints SET document = :document "
                    "WHERE checkpoint_id = :checkpoint_id"
                ),
                {"document": garbage, "checkpoint_id": checkpoint_id},
            )
        engine.dispose()
    else:
        with sqlite3.connect(tmp_path / "checkpoints.db") as connection:
            connection.execute(
                "UPDATE agentry_workflow_checkpoints SET document = ? WHERE checkpoint_id = ?",
                (garbage, checkpoint_id),
            )


async def test_a_corrupted_checkpoint_fails_clearly_and_leaves_the_others_usable(
    storage: CheckpointStorage, tmp_path: Path
) -> None:
    await build().run(Job("a"), checkpoint_storage=storage)
    ids = await storage.list_checkpoint_ids(workflow_name="pipeline")
    corrupt(storage, ids[1], tmp_path)
    with pytest.raises(
        WorkflowCheckpointException,
        match=f"checkpoint '{ids[1]}' cannot be read: the checkpoint is not valid JSON",
    ):
        await storage.load(ids[1])
    with pytest.raises(WorkflowCheckpointException, match="not valid JSON"):
        await build().run(checkpoint_id=ids[1], checkpoint_storage=storage)
    readable = await storage.list_checkpoints(workflow_name="pipeline")
    assert [c.checkpoint_id for c in readable] == [ids[0], ids[2], ids[3]]
    resumed = await build().run(checkpoint_id=ids[2], checkpoint_storage=storage)
    assert resumed.get_outputs() == ["joined:a@2,a@3"]


async def test_foreign_checkpoints_are_refused(storage: CheckpointStorage) -> None:
    await build("pipeline").run(Job("a"), checkpoint_storage=storage)
    checkpoint_id = (await storage.list_checkpoint_ids(workflow_name="pipeline"))[0]
    with pytest.raises(
        WorkflowCheckpointException, match="belongs to workflow 'pipeline', not 'approval'"
    ):
        await approval_workflow().run(checkpoint_id=checkpoint_id, checkpoint_storage=storage)
    same_name_other_graph = WorkflowBuilder(
        name="pipeline", start_executor=Counter("start")
    ).build()
    with pytest.raises(WorkflowCheckpointException, match="whose graph differs"):
        await same_name_other_graph.run(checkpoint_id=checkpoint_id, checkpoint_storage=storage)
    with pytest.raises(WorkflowCheckpointException, match="no checkpoint with id 'missing'"):
        await build().run(checkpoint_id="missing", checkpoint_storage=storage)


async def test_checkpoints_naming_unknown_types_or_executors_are_refused(
    storage: CheckpointStorage,
) -> None:
    await build().run(Job("a"), checkpoint_storage=storage)
    good = (await storage.list_checkpoints(workflow_name="pipeline"))[0]
    forged_type = WorkflowCheckpoint.from_dict(
        {
            **good.to_dict(),
            "checkpoint_id": "forged1",
            "state": {"x": {"__agentry_type__": "os.system", "value": "ls"}},
        }
    )
    forged_executor = WorkflowCheckpoint.from_dict(
        {**good.to_dict(), "checkpoint_id": "forged2", "executor_states": {"intruder": {}}}
    )
    await storage.save(forged_type)
    await storage.save(forged_executor)
    with pytest.raises(WorkflowCheckpointException, match=r"'os\.system'.*does not know"):
        await build().run(checkpoint_id="forged1", checkpoint_storage=storage)
    with pytest.raises(WorkflowCheckpointException, match="executor 'intruder'"):
        await build().run(checkpoint_id="forged2", checkpoint_storage=storage)
    assert (
        await build().run(checkpoint_id=good.checkpoint_id, checkpoint_storage=storage)
    ).get_final_state() is WorkflowRunState.IDLE


def test_documents_that_are_not_checkpoints_are_refused() -> None:
    cases: list[tuple[str, str]] = [
        ("[]", "must be a JSON object"),
        ('{"format": "something else"}', "not an agentry workflow checkpoint"),
        (
            '{"format": "agentry.workflow_checkpoint", "version": 99}',
            "newer than this agentry reads",
        ),
        ('{"format": "agentry.workflow_checkpoint", "version": 1}', "is malformed"),
    ]
    for text, message in cases:
        with pytest.raises(WorkflowCheckpointException, match=message):
            WorkflowCheckpoint.from_json(text)


async def test_unencodable_state_fails_the_save_clearly() -> None:
    class Opaque:
        pass

    class Stasher(Executor):
        @handler
        async def stash(self, job: Job, ctx: WorkflowContext) -> None:
            ctx.set_state("opaque", Opaque())

    workflow = WorkflowBuilder(start_executor=Stasher()).build()
    with pytest.raises(
        WorkflowCheckpointException,
        match=r"Opaque at \$\.state\.opaque: its type is not registered",
    ):
        await workflow.run(Job("a"), checkpoint_storage=InMemoryCheckpointStorage())


async def test_storage_deletes_and_rejects_unsafe_ids(storage: CheckpointStorage) -> None:
    await build().run(Job("a"), checkpoint_storage=storage)
    first = (await storage.list_checkpoint_ids(workflow_name="pipeline"))[0]
    assert await storage.delete(first) is True
    assert await storage.delete(first) is False
    assert first not in await storage.list_checkpoint_ids(workflow_name="pipeline")
    if isinstance(storage, FileCheckpointStorage):
        with pytest.raises(WorkflowCheckpointException, match="not a valid checkpoint id"):
            await storage.load("../../etc/passwd")


async def test_file_saves_leave_no_temporary_files(tmp_path: Path) -> None:
    storage = FileCheckpointStorage(tmp_path)
    await build().run(Job("a"), checkpoint_storage=storage)
    names = _listing(tmp_path)
    assert len(names) == 4
    assert all(n.endswith(".json") and not n.startswith(".") for n in names)


async def test_an_interrupted_file_save_keeps_the_old_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage = FileCheckpointStorage(tmp_path)
    await build().run(Job("a"), checkpoint_storage=storage)
    checkpoint = (await storage.list_checkpoints(workflow_name="pipeline"))[0]
    path = tmp_path / f"{checkpoint.checkpoint_id}.json"
    before = _read(path)

    def crash(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", crash)
    checkpoint.metadata = {"changed": True}
    with pytest.raises(OSError, match="disk full"):
        await storage.save(checkpoint)
    assert _read(path) == before
    assert not [name for name in _listing(tmp_path) if name.startswith(".tmp-")]


async def test_the_sqlite_file_is_shared_with_the_sqlalchemy_storage(tmp_path: Path) -> None:
    database = tmp_path / "shared.db"
    sqlite = SQLiteCheckpointStorage(database)
    await build().run(Job("a"), checkpoint_storage=sqlite)
    sql = SQLCheckpointStorage(f"sqlite+aiosqlite:///{database}")
    try:
        ids = await sqlite.list_checkpoint_ids(workflow_name="pipeline")
        assert await sql.list_checkpoint_ids(workflow_name="pipeline") == ids
        resumed = await build().run(checkpoint_id=ids[1], checkpoint_storage=sql)
        assert resumed.get_outputs() == ["long2:a:1", "joined:a@2,a@3"]
    finally:
        await sql.close()
        await sqlite.close()


def _listing(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def _read(path: Path) -> str:
    return path.read_text()


def test_optional_checkpoint_fields_may_be_absent() -> None:
    data = WorkflowCheckpoint(workflow_name="w", graph_signature="g").to_dict()
    for optional in ("previous_checkpoint_id", "run_id", "messages", "state", "metadata"):
        del data[optional]
    restored = WorkflowCheckpoint.from_dict(data)
    assert (restored.previous_checkpoint_id, restored.run_id, restored.messages) == (None, "", [])


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("iteration_count", -5, "'iteration_count' should be a count of supersteps"),
        ("iteration_count", True, "'iteration_count' should be a valid integer, not True"),
        ("iteration_count", 1e999, "'iteration_count' should be a valid integer, not inf"),
        ("timestamp", None, "'timestamp' should be a valid string, not None"),
        ("state", [], "'state' should be a valid dictionary"),
        ("checkpoint_id", 7, "'checkpoint_id' should be a valid string, not 7"),
        ("extra", 1, r"unknown checkpoint fields \['extra'\]"),
    ],
)
def test_wrongly_typed_checkpoint_fields_are_refused_naming_the_field(
    field: str, value: object, problem: str
) -> None:
    data = {**WorkflowCheckpoint(workflow_name="w", graph_signature="g").to_dict(), field: value}
    with pytest.raises(WorkflowCheckpointException, match=f"checkpoint is malformed: .*{problem}"):
        WorkflowCheckpoint.from_dict(data)


def test_a_required_checkpoint_field_that_is_missing_is_named() -> None:
    data = WorkflowCheckpoint(workflow_name="w", graph_signature="g").to_dict()
    del data["graph_signature"]
    with pytest.raises(WorkflowCheckpointException, match="field 'graph_signature' is missing"):
        WorkflowCheckpoint.from_dict(data)


def test_checkpoint_json_nested_too_deeply_is_refused() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    text = WorkflowCheckpoint(workflow_name="w", graph_signature="g").to_json()
    with pytest.raises(WorkflowCheckpointException, match="nested too deeply"):
        WorkflowCheckpoint.from_json(text.replace('"messages": []', f'"messages": {deep}'))


async def test_a_file_that_is_not_a_database_is_a_checkpoint_error(tmp_path: Path) -> None:
    (tmp_path / "c.db").write_bytes(b"not a database " * 100)
    sql = SQLCheckpointStorage(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}")
    sqlite = SQLiteCheckpointStorage(tmp_path / "c.db")
    try:
        for storage, problem in ((sql, "cannot open the checkpoint table"), (sqlite, "cannot")):
            with pytest.raises(WorkflowCheckpointException, match=problem):
                await storage.list_checkpoints(workflow_name="w")
            with pytest.raises(WorkflowCheckpointException, match=problem):
                await storage.save(WorkflowCheckpoint(workflow_name="w", graph_signature="g"))
    finally:
        await sql.close()
        await sqlite.close()
    assert (tmp_path / "c.db").read_bytes() == b"not a database " * 100
