from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel
from typing_extensions import Never

from agentry.workflows import (
    Executor,
    FunctionExecutor,
    WorkflowBuilder,
    WorkflowContext,
    executor,
    handler,
)


@dataclass
class Ticket:
    title: str


class Invoice(BaseModel):
    amount: int


class Animal:
    pass


class Dog(Animal):
    pass


class Router(Executor):
    """Records which handler took each message."""

    def __init__(self) -> None:
        super().__init__(id="router")
        self.seen: list[tuple[str, Any]] = []

    @handler
    async def on_text(self, text: str, ctx: WorkflowContext[Never, str]) -> None:
        self.seen.append(("text", text))

    @handler
    async def on_number(self, number: int | float, ctx: WorkflowContext[Never, str]) -> None:
        self.seen.append(("number", number))

    @handler
    async def on_ints(self, values: list[int], ctx: WorkflowContext[Never, str]) -> None:
        self.seen.append(("ints", values))

    @handler
    async def on_strs(self, values: list[str], ctx: WorkflowContext[Never, str]) -> None:
        self.seen.append(("strs", values))

    @handler
    async def on_ticket(self, ticket: Ticket, ctx: WorkflowContext[Never, str]) -> None:
        self.seen.append(("ticket", ticket))

    @handler
    async def on_invoice(self, invoice: Invoice, ctx: WorkflowContext[Never, str]) -> None:
        self.seen.append(("invoice", invoice))

    @handler
    async def on_animal(self, animal: Animal, ctx: WorkflowContext[Never, str]) -> None:
        self.seen.append(("animal", animal))

    @handler
    async def on_dog(self, dog: Dog, ctx: WorkflowContext[Never, str]) -> None:
        self.seen.append(("dog", dog))

    @handler
    async def on_anything(self, value: Any, ctx: WorkflowContext[Never, str]) -> None:
        self.seen.append(("any", value))


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("hi", "text"),
        (3, "number"),
        (2.5, "number"),
        ([1, 2], "ints"),
        (["a"], "strs"),
        (Ticket("t"), "ticket"),
        (Invoice(amount=3), "invoice"),
        (Animal(), "animal"),
        (Dog(), "dog"),
        ({"a": 1}, "any"),
        ([1, "mixed"], "any"),
    ],
)
async def test_messages_reach_the_handler_of_the_closest_type(message: Any, expected: str) -> None:
    router = Router()
    workflow = WorkflowBuilder(start_executor=router).build()
    await workflow.run(message)
    assert router.seen == [(expected, message)]


def test_declared_types_come_from_annotations() -> None:
    class Stage(Executor):
        @handler
        async def stage(self, text: str, ctx: WorkflowContext[int | str, bool]) -> None:
            pass

    stage = Stage()
    assert stage.id == "Stage"
    assert stage.input_types == [str]
    assert stage.output_types == [int, str]
    assert stage.workflow_output_types == [bool]


def test_explicit_handler_types_win_over_annotations() -> None:
    class Explicit(Executor):
        @handler(input=int, output=str, workflow_output=bool)
        async def stage(self, value: Any, ctx: WorkflowContext) -> None:
            pass

    stage = Explicit(id="explicit")
    assert stage.input_types == [int]
    assert stage.output_types == [str]
    assert stage.workflow_output_types == [bool]
    assert stage.can_handle(3)
    assert not stage.can_handle("3")


def test_an_unparameterised_context_says_nothing_about_outputs() -> None:
    class Quiet(Executor):
        @handler
        async def stage(self, text: str, ctx: WorkflowContext) -> None:
            pass

    assert Quiet().output_types is None


def test_an_executor_without_handlers_is_refused() -> None:
    class Empty(Executor):
        pass

    with pytest.raises(TypeError, match="no @handler methods"):
        Empty()


def test_a_handler_without_a_message_annotation_is_refused() -> None:
    async def stage(self: Executor, text, ctx: WorkflowContext) -> None:  # type: ignore[no-untyped-def]  # pyright: ignore[reportMissingParameterType, reportUnknownParameterType]
        pass

    unannotated: Any = stage  # pyright: ignore[reportUnknownVariableType]
    Unannotated = type("Unannotated", (Executor,), {"stage": handler(unannotated)})

    with pytest.raises(TypeError, match="needs a type annotation on its message parameter 'text'"):
        Unannotated()


def test_a_context_parameter_of_another_type_is_refused() -> None:
    with pytest.raises(TypeError, match="must be annotated WorkflowContext"):

        @executor
        async def wrong(text: str, ctx: int) -> None:
            pass


def test_an_empty_id_is_refused() -> None:
    async def stage(text: str) -> None:
        pass

    with pytest.raises(ValueError, match="non-empty string"):
        FunctionExecutor(stage, id="")


async def test_function_executors_take_message_only_or_message_and_context() -> None:
    @executor
    async def add_one(n: int) -> int:
        return n + 1

    @executor(id="show")
    async def show(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(n)

    assert add_one.id == "add_one"
    assert add_one.output_types == [int]
    workflow = WorkflowBuilder(start_executor=add_one).add_edge(add_one, show).build()
    result = await workflow.run(41)
    assert result.get_outputs() == [42]


async def test_plain_functions_run_in_a_worker_thread() -> None:
    threads: list[str] = []

    def blocking_double(n: int) -> int:
        threads.append(threading.current_thread().name)
        return n * 2

    @executor
    async def show(n: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(n)

    double = FunctionExecutor(blocking_double)
    result = await WorkflowBuilder(start_executor=double).add_edge(double, show).build().run(4)
    assert result.get_outputs() == [8]
    assert threads != [threading.current_thread().name]


async def test_subclass_handlers_override_and_inherit() -> None:
    class Base(Executor):
        @handler
        async def on_text(self, text: str, ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output(f"base:{text}")

        @handler
        async def on_number(self, n: int, ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output(f"base:{n}")

    class Child(Base):
        @handler
        async def on_text(self, text: str, ctx: WorkflowContext[Never, str]) -> None:
            await ctx.yield_output(f"child:{text}")

    workflow = WorkflowBuilder(start_executor=Child()).build()
    assert (await workflow.run("a")).get_outputs() == ["child:a"]
    assert (await workflow.run(1)).get_outputs() == ["base:1"]


def _stage_of(kind: type) -> FunctionExecutor:
    """A function executor of a new closure each time, typed for `kind`."""

    async def stage(message: Any, ctx: Any) -> None:
        await ctx.send_message(message)

    stage.__annotations__ = {"message": kind, "ctx": WorkflowContext[kind], "return": None}
    return executor(stage, id=kind.__name__)


def test_closures_of_one_function_keep_their_own_types() -> None:
    as_int, as_str, as_int_again = _stage_of(int), _stage_of(str), _stage_of(int)

    assert (as_int.input_types, as_int.output_types) == ([int], [int])
    assert (as_str.input_types, as_str.output_types) == ([str], [str])
    assert (as_int_again.input_types, as_int_again.output_types) == ([int], [int])


def test_a_function_built_again_has_its_signature_read_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import typing

    reads: list[object] = []
    read_type_hints = typing.get_type_hints

    def counted(func: Any) -> dict[str, Any]:
        reads.append(func)
        return read_type_hints(func)

    monkeypatch.setattr(typing, "get_type_hints", counted)

    def build() -> FunctionExecutor:
        async def add_one(n: int, ctx: WorkflowContext[int]) -> None:
            await ctx.send_message(n + 1)

        return executor(add_one)

    stages = [build() for _ in range(3)]

    assert len(reads) == 1
    assert all(s.input_types == [int] and s.output_types == [int] for s in stages)


def test_wrapped_functions_of_one_decorator_keep_their_own_types() -> None:
    import functools

    def logged(func: Any) -> Any:
        @functools.wraps(func)
        async def wrapper(message: Any, ctx: Any) -> None:
            await func(message, ctx)

        return wrapper

    @logged
    async def on_text(text: str, ctx: WorkflowContext[str]) -> None:
        await ctx.send_message(text)

    @logged
    async def on_number(n: int, ctx: WorkflowContext[int]) -> None:
        await ctx.send_message(n)

    assert executor(on_text).input_types == [str]
    assert executor(on_number).input_types == [int]


def test_a_global_type_defined_again_is_read_again() -> None:
    module: dict[str, Any] = {"WorkflowContext": WorkflowContext}
    source = (
        "class Draft: pass\n"
        "def build():\n"
        "    async def stage(draft: 'Draft', ctx: 'WorkflowContext[Draft]') -> None: ...\n"
        "    return stage\n"
    )
    exec(source, module)
    first_draft = module["Draft"]
    first = executor(module["build"](), id="first")
    exec("class Draft: pass\n", module)  # as a notebook cell run again

    again = executor(module["build"](), id="again")

    assert first.input_types == [first_draft]
    assert again.input_types == [module["Draft"]] != [first_draft]
