from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from pydantic import BaseModel

from agentry.workflows import WorkflowBuilder, WorkflowContext, executor
from agentry.workflows._typing import compile_matcher, is_type_compatible, type_name


class Animal:
    pass


class Dog(Animal):
    pass


@dataclass
class Point:
    x: int
    y: int


class Order(BaseModel):
    item: str


@pytest.mark.parametrize(
    ("annotation", "value", "expected"),
    [
        (str, "a", True),
        (str, 1, False),
        (int | None, None, True),
        (Optional[int], 3, True),  # noqa: UP045
        (Union[int, str], 2.5, False),  # noqa: UP007
        (list[int], [1, 2], True),
        (list[int], [1, "x"], False),
        (list[int], (1, 2), False),
        (list[Any], ["x", 1], True),
        (dict[str, int], {"a": 1}, True),
        (dict[str, int], {"a": "b"}, False),
        (tuple[int, str], (1, "a"), True),
        (tuple[int, str], (1, 2), False),
        (tuple[int, ...], (1, 2, 3), True),
        (Sequence[str], ["a"], True),
        (Any, object(), True),
        (object, 3, True),
        (Literal["a", "b"], "a", True),
        (Literal["a", "b"], "c", False),
        (Animal, Dog(), True),
        (Dog, Animal(), False),
        (Point, Point(1, 2), True),
        (Order, Order(item="x"), True),
        (Order, {"item": "x"}, False),
        (Annotated[int, "meta"], 5, True),
        (Annotated[int, {"unit": "px"}], 5, True),  # extras that cannot be hashed
        (list[Point] | str, [Point(1, 1)], True),
        (list[Point] | str, [1], False),
    ],
)
def test_matcher_checks_values_against_annotations(
    annotation: Any, value: Any, expected: bool
) -> None:
    assert compile_matcher(annotation).matches(value) is expected


def test_plain_classes_are_cacheable_and_generics_are_not() -> None:
    assert compile_matcher(str).classes == (str,)
    assert compile_matcher(int | str).classes == (int, str)
    assert compile_matcher(list[int]).classes is None
    assert compile_matcher(list[Any]).classes == (list,)


def test_distance_prefers_the_closest_class() -> None:
    assert compile_matcher(Dog).distance(Dog) < compile_matcher(Animal).distance(Dog)
    assert compile_matcher(Animal).distance(Dog) < compile_matcher(Any).distance(Dog)


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        (str, str, True),
        (str, int, False),
        (Dog, Animal, True),
        (Animal, Dog, False),
        (int, int | str, True),
        (int | bytes, str, False),
        (int | str, str, True),
        (list[int], list[int], True),
        (list[int], list[str], False),
        (list[Dog], list[Animal], True),
        (list[int], list[Any], True),
        (list[int], Sequence[int], True),
        (Any, int, True),
        (int, Any, True),
        (Literal["a"], str, True),
        (str, Literal["a"], True),
        (Literal["a"], Literal["b"], False),
        (None, int | None, True),
    ],
)
def test_type_compatibility(source: Any, target: Any, expected: bool) -> None:
    assert is_type_compatible(source, target) is expected


def test_type_names_are_readable() -> None:
    assert type_name(str) == "str"
    assert type_name(None) == "None"
    assert type_name(Any) == "Any"
    assert type_name(list[int]) == "list[int]"


def test_remembered_matchers_keep_literals_of_equal_values_apart() -> None:
    assert compile_matcher(Literal[1]).matches(1)
    assert not compile_matcher(Literal[True]).matches(1)
    assert compile_matcher(Literal[True]).matches(True)


async def test_a_handler_whose_annotation_cannot_be_hashed_builds_and_runs_each_time() -> None:
    def build() -> Any:
        async def double(
            n: Annotated[int, {"unit": "px"}], ctx: WorkflowContext[None, int]
        ) -> None:
            await ctx.yield_output(n * 2)

        return WorkflowBuilder(start_executor=executor(double)).build()

    for value in (1, 2):
        result = await build().run(value)
        assert result.get_outputs() == [value * 2]
