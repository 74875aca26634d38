from __future__ import annotations

import pytest
from typing_extensions import Never

from agentry.clients.scripted import ScriptedChatClient
from agentry.workflows import (
    AgentExecutor,
    Case,
    Default,
    EdgeDuplicationError,
    Executor,
    FunctionExecutor,
    GraphConnectivityError,
    TypeCompatibilityError,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowValidationError,
    executor,
    handler,
)


def text_stage(name: str) -> FunctionExecutor:
    async def stage(text: str, ctx: WorkflowContext[str, str]) -> None:
        await ctx.send_message(text)

    return executor(stage, id=name)


def number_stage(name: str) -> FunctionExecutor:
    async def stage(n: int, ctx: WorkflowContext[int, int]) -> None:
        await ctx.send_message(n)

    return executor(stage, id=name)


def test_a_workflow_needs_a_start_executor() -> None:
    with pytest.raises(WorkflowValidationError, match="no start executor") as caught:
        WorkflowBuilder().add_edge(text_stage("a"), text_stage("b")).build()
    assert caught.value.validation_type == "missing_start"


def test_set_start_executor_is_the_same_as_the_argument() -> None:
    a, b = text_stage("a"), text_stage("b")
    workflow = WorkflowBuilder().set_start_executor(a).add_edge(a, b).build()
    assert workflow.start_executor_id == "a"
    assert workflow.name == "a"


def test_different_executors_with_one_id_are_refused() -> None:
    first, second = text_stage("same"), text_stage("same")
    with pytest.raises(WorkflowValidationError, match=r"share the id\(s\) \['same'\]") as caught:
        WorkflowBuilder(start_executor=first).add_edge(first, second).build()
    assert caught.value.validation_type == "duplicate_id"


def test_the_same_edge_twice_is_refused() -> None:
    a, b = text_stage("a"), text_stage("b")
    with pytest.raises(EdgeDuplicationError, match="more than one edge from 'a' to 'b'"):
        WorkflowBuilder(start_executor=a).add_edge(a, b).add_fan_out_edges(a, [b]).build()


def test_unreachable_executors_are_named() -> None:
    a, b, c, d = text_stage("a"), text_stage("b"), text_stage("c"), text_stage("d")
    with pytest.raises(GraphConnectivityError, match=r"\['c', 'd'\] cannot be reached"):
        WorkflowBuilder(start_executor=a).add_edge(a, b).add_edge(c, d).build()


def test_an_edge_between_mismatched_types_is_refused() -> None:
    a, n = text_stage("a"), number_stage("n")
    with pytest.raises(TypeCompatibilityError, match=r"'a' sends \[str\], 'n' accepts \[int\]"):
        WorkflowBuilder(start_executor=a).add_edge(a, n).build()


def test_a_fan_in_target_must_accept_a_list() -> None:
    a, b = text_stage("a"), text_stage("b")
    join = text_stage("join")
    with pytest.raises(TypeCompatibilityError, match="a fan-in target receives a list"):
        WorkflowBuilder(start_executor=a).add_edge(a, b).add_fan_in_edges([a, b], join).build()


def test_a_fan_in_target_taking_a_list_of_the_sources_type_is_accepted() -> None:
    a, b = text_stage("a"), text_stage("b")

    @executor
    async def join(texts: list[str], ctx: WorkflowContext[Never, str]) -> None:
        pass

    workflow = (
        WorkflowBuilder(start_executor=a).add_edge(a, b).add_fan_in_edges([a, b], join).build()
    )
    assert "join" in workflow.executors


def test_a_source_that_declares_no_sends_cannot_have_edges() -> None:
    @executor
    async def sink(text: str, ctx: WorkflowContext[Never, str]) -> None:
        pass

    with pytest.raises(TypeCompatibilityError, match="'sink' sends nothing"):
        WorkflowBuilder(start_executor=sink).add_edge(sink, text_stage("b")).build()


def test_undeclared_sends_are_not_checked() -> None:
    @executor
    async def loose(text: str, ctx: WorkflowContext) -> None:
        pass

    WorkflowBuilder(start_executor=loose).add_edge(loose, number_stage("n")).build()


def test_a_switch_case_needs_one_default_last() -> None:
    a, b, c = text_stage("a"), text_stage("b"), text_stage("c")
    with pytest.raises(WorkflowValidationError, match="exactly one Default"):
        WorkflowBuilder(start_executor=a).add_switch_case_edge_group(
            a, [Case(condition=lambda t: True, target=b)]
        ).build()
    with pytest.raises(WorkflowValidationError, match="exactly one Default"):
        WorkflowBuilder(start_executor=a).add_switch_case_edge_group(
            a, [Default(target=c), Case(condition=lambda t: True, target=b)]
        ).build()


def test_fan_out_targets_must_be_distinct_and_present() -> None:
    a, b = text_stage("a"), text_stage("b")
    with pytest.raises(ValueError, match="fan-out targets must not be empty"):
        WorkflowBuilder(start_executor=a).add_fan_out_edges(a, [])
    with pytest.raises(ValueError, match="list the same executor twice"):
        WorkflowBuilder(start_executor=a).add_fan_out_edges(a, [b, b])


def test_non_executors_are_refused_with_a_hint() -> None:
    async def plain(text: str) -> None:
        pass

    with pytest.raises(TypeError, match="turn a function into an executor with @executor"):
        WorkflowBuilder(start_executor=plain)


def test_agents_are_wrapped_once_each() -> None:
    agent = ScriptedChatClient(["hi"]).as_agent(name="writer")
    reviewer = ScriptedChatClient(["ok"]).as_agent(name="reviewer")
    a = text_stage("a")
    workflow = (
        WorkflowBuilder(start_executor=a)
        .add_edge(a, agent)
        .add_edge(agent, reviewer)
        .add_edge(reviewer, agent)
        .build()
    )
    assert sorted(workflow.executors) == ["a", "reviewer", "writer"]
    wrapped = workflow.executors["writer"]
    assert isinstance(wrapped, AgentExecutor)
    assert wrapped.agent is agent


def test_max_iterations_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive integer"):
        WorkflowBuilder(0)


def test_a_start_executor_given_positionally_gets_told_the_keyword() -> None:
    start = text_stage("double")
    with pytest.raises(TypeError, match=r"WorkflowBuilder\(start_executor=double\)"):
        WorkflowBuilder(start)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


def test_an_agent_given_positionally_gets_told_the_keyword() -> None:
    agent = ScriptedChatClient(["hi"]).as_agent(name="writer")
    with pytest.raises(TypeError, match="first positional argument is max_iterations"):
        WorkflowBuilder(agent)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


async def test_edges_accept_the_ids_of_executors_given_elsewhere() -> None:
    @executor(id="double")
    async def double(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send_message(n * 2)

    @executor(id="report")
    async def report(n: int, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"result: {n}")

    workflow = (
        WorkflowBuilder(start_executor=double, output_from=["report"])
        .add_edge(double, report)
        .build()
    )
    by_id = WorkflowBuilder(start_executor=double).add_edge("double", report).build()
    start_by_id = WorkflowBuilder(start_executor="double").add_edge(double, report).build()
    for built in (workflow, by_id, start_by_id):
        assert (await built.run(21)).get_outputs() == ["result: 42"]
    with pytest.raises(EdgeDuplicationError, match="more than one edge from 'double'"):
        WorkflowBuilder(start_executor=double).add_edge(double, report).add_edge(
            "double", "report"
        ).build()


def test_fan_out_fan_in_and_switch_case_accept_ids() -> None:
    a, b, c, d = number_stage("a"), number_stage("b"), number_stage("c"), number_stage("d")

    async def join(numbers: list[int], ctx: WorkflowContext[int]) -> None:
        await ctx.send_message(sum(numbers))

    joined = executor(join, id="join")
    workflow = (
        WorkflowBuilder(start_executor=a)
        .add_fan_out_edges("a", [b, c])
        .add_fan_in_edges(["b", "c"], joined)
        .add_switch_case_edge_group(
            "join", [Case(condition=lambda n: n > 10, target=d), Default(target="a")]
        )
        .build()
    )
    assert sorted(workflow.executors) == ["a", "b", "c", "d", "join"]


def test_an_id_no_executor_has_is_named_with_what_to_do() -> None:
    a = text_stage("a")
    with pytest.raises(WorkflowValidationError, match="unknown executor 'ghost'; give the builder"):
        WorkflowBuilder(start_executor=a).add_edge("a", "ghost").build()
    with pytest.raises(WorkflowValidationError, match="start executor 'ghost' is not part"):
        WorkflowBuilder(start_executor="ghost").add_edge(a, text_stage("b")).build()


class TwoOutputs(Executor):
    @handler
    async def stage(self, text: str, ctx: WorkflowContext[str, str]) -> None:
        await ctx.send_message(text)


@pytest.mark.parametrize(
    ("output_from", "intermediate_output_from", "message"),
    [
        (["ghost"], None, "output_from names 'ghost', which is not in the workflow"),
        (["a", "a"], None, "output_from lists 'a' twice"),
        (["a"], ["a"], "'a' is in both output_from and intermediate_output_from"),
        ("all", ["a"], "intermediate_output_from cannot select executors too"),
        (["a"], "all", "use 'all_other'"),
        ([], None, "select no executor"),
        ("everything", None, "must be a list of executors or 'all'"),
    ],
)
def test_output_selection_errors(
    output_from: object, intermediate_output_from: object, message: str
) -> None:
    a, b = text_stage("a"), text_stage("b")
    builder = WorkflowBuilder(
        start_executor=a,
        output_from=output_from,  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
        intermediate_output_from=intermediate_output_from,  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    ).add_edge(a, b)
    with pytest.raises(WorkflowValidationError, match=message):
        builder.build()


@pytest.mark.parametrize(
    ("output_from", "intermediate_output_from", "expected"),
    [
        (None, None, {"a": "output", "b": "output", "c": "output"}),
        ("all", None, {"a": "output", "b": "output", "c": "output"}),
        (["c"], None, {"a": None, "b": None, "c": "output"}),
        (["c"], ["a"], {"a": "intermediate", "b": None, "c": "output"}),
        (["c"], "all_other", {"a": "intermediate", "b": "intermediate", "c": "output"}),
        (None, "all", {"a": "intermediate", "b": "intermediate", "c": "intermediate"}),
        (None, ["b"], {"a": None, "b": "intermediate", "c": None}),
    ],
)
def test_output_selection_kinds(
    output_from: object, intermediate_output_from: object, expected: dict[str, str | None]
) -> None:
    a, b, c = text_stage("a"), text_stage("b"), text_stage("c")
    workflow = (
        WorkflowBuilder(
            start_executor=a,
            output_from=output_from,  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
            intermediate_output_from=intermediate_output_from,  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
        )
        .add_chain([a, b, c])
        .build()
    )
    assert {eid: workflow.output_kind_of(eid) for eid in "abc"} == expected


def test_output_selection_accepts_executors_and_ids() -> None:
    a, b = text_stage("a"), text_stage("b")
    workflow = (
        WorkflowBuilder(start_executor=a, output_from=[b], intermediate_output_from=["a"])
        .add_edge(a, b)
        .build()
    )
    assert workflow.output_kind_of("b") == "output"
    assert workflow.output_kind_of("a") == "intermediate"
