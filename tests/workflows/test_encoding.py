from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel

from agentry.types import AgentResponse, Content, Message
from agentry.workflows import WorkflowCheckpointException, register_checkpoint_type
from agentry.workflows._encoding import TYPE_KEY, CheckpointTypeRegistry


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass
class Line:
    text: str
    color: Color


@dataclass
class Page:
    lines: list[Line]
    tags: tuple[str, ...] = ()
    extra: dict[int, str] = field(default_factory=dict[int, str])


class Order(BaseModel):
    item: str
    quantity: int


class Secret:
    """Neither registered nor encodable."""


@register_checkpoint_type
@dataclass
class Tally:
    count: int


def roundtrip(registry: CheckpointTypeRegistry, value: Any) -> Any:
    encoded = registry.encode(value)
    text = json.dumps(encoded)  # plain JSON, nothing else
    return registry.decode(json.loads(text))


def test_declared_types_and_their_field_types_roundtrip() -> None:
    registry = CheckpointTypeRegistry([Page, Order])
    page = Page([Line("a", Color.RED)], tags=("x", "y"), extra={1: "one"})
    assert roundtrip(registry, page) == page
    assert roundtrip(registry, Order(item="pen", quantity=2)) == Order(item="pen", quantity=2)


def test_builtin_containers_keep_their_types() -> None:
    registry = CheckpointTypeRegistry()
    value = {
        "tuple": (1, 2),
        "set": {3},
        "frozen": frozenset({4}),
        "bytes": b"\x00\x01",
        "int_keys": {1: "a"},
        "nested": [{"a": [None, True, 1.5]}],
        TYPE_KEY: "not a marker",
    }
    assert roundtrip(registry, value) == value


def test_agentry_types_roundtrip_without_registration() -> None:
    registry = CheckpointTypeRegistry()
    message = Message(
        "user", ["hello", Content.from_function_call(call_id="1", name="f", arguments={"a": 1})]
    )
    response = AgentResponse(messages=[Message("assistant", ["hi"])])
    assert roundtrip(registry, [message, response]) == [message, response]


def test_globally_registered_types_roundtrip() -> None:
    assert roundtrip(CheckpointTypeRegistry(), Tally(3)) == Tally(3)


def test_types_roundtrip_as_type_descriptors() -> None:
    registry = CheckpointTypeRegistry([Order])
    for annotation in (str, int | None, list[Order], dict[str, int], Any, Order):
        assert roundtrip(registry, annotation) == annotation


def test_unregistered_values_are_refused_on_encode_with_the_path() -> None:
    registry = CheckpointTypeRegistry()
    with pytest.raises(
        WorkflowCheckpointException,
        match=r"Secret at \$\.state\.key\[1\]: its type is not registered",
    ):
        registry.encode({"state": {"key": [1, Secret()]}})


def test_unknown_type_names_are_refused_on_decode() -> None:
    registry = CheckpointTypeRegistry()
    forged = {TYPE_KEY: "os.system", "value": "rm -rf /"}
    with pytest.raises(
        WorkflowCheckpointException, match=r"'os\.system'.*a type this workflow does not know"
    ):
        registry.decode({"x": forged})
    with pytest.raises(WorkflowCheckpointException, match="does not know"):
        registry.decode({TYPE_KEY: "type", "value": "subprocess.Popen"})


def test_data_that_does_not_fit_its_type_is_refused() -> None:
    registry = CheckpointTypeRegistry([Order])
    name = f"{Order.__module__}.{Order.__qualname__}"
    with pytest.raises(WorkflowCheckpointException, match="cannot be restored"):
        registry.decode({TYPE_KEY: name, "value": {"item": "pen"}})


def test_registration_needs_an_encodable_class() -> None:
    with pytest.raises(TypeError, match="cannot be stored in a checkpoint"):
        register_checkpoint_type(Secret)
