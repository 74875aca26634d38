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


@dataclass
class Reading:
    count: int
    score: float = 0
    scores: list[float] = field(default_factory=lambda: [1, 2.5])
    note: str | None = None
    seen: int = field(default=0, init=False)


def test_dataclasses_restore_with_ints_in_float_fields_and_their_non_init_fields() -> None:
    registry = CheckpointTypeRegistry([Reading])
    reading = Reading(3)
    reading.seen = 7
    restored = roundtrip(registry, reading)
    assert restored == reading
    assert restored.seen == 7


def _stored_reading(**fields: Any) -> dict[str, Any]:
    registry = CheckpointTypeRegistry([Reading])
    data = registry.encode(Reading(3))
    data["value"].update(fields)
    return data


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        (
            {"__dict__": {"count": "x"}},
            r"names fields that Reading does not declare: \['__dict__'\]",
        ),
        ({"__class__": "str"}, "does not declare"),
        ({"count": "not a number"}, "its field 'count' should be int, not str"),
        ({"scores": [1, "two"]}, "its field 'scores' should be list\\[float\\], not list"),
        ({"note": 5}, "its field 'note' should be"),
    ],
)
def test_stored_dataclasses_set_only_declared_fields_of_their_types(
    fields: dict[str, Any], problem: str
) -> None:
    registry = CheckpointTypeRegistry([Reading])
    with pytest.raises(WorkflowCheckpointException, match=problem):
        registry.decode(_stored_reading(**fields))


@pytest.mark.parametrize("value", ["!!!", "aGk", 5, None])
def test_a_bytes_marker_must_hold_valid_base64(value: object) -> None:
    with pytest.raises(
        WorkflowCheckpointException, match=r"the bytes stored at \$ cannot be restored"
    ):
        CheckpointTypeRegistry().decode({TYPE_KEY: "bytes", "value": value})
    assert CheckpointTypeRegistry().decode({TYPE_KEY: "bytes", "value": "aGk="}) == b"hi"


def test_values_nested_too_deeply_are_checkpoint_errors() -> None:
    deep: Any = "leaf"
    for _ in range(5000):
        deep = [deep]
    registry = CheckpointTypeRegistry()
    with pytest.raises(WorkflowCheckpointException, match="nested too deeply"):
        registry.encode({"state": deep})
    with pytest.raises(WorkflowCheckpointException, match="nested too deeply"):
        registry.decode({"state": deep})
