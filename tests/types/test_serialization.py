"""SerializationMixin: one way to turn agentry's objects into plain JSON and back."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field

import pytest

from agentry import AgentSession, Message, SerializationMixin
from agentry.errors import SerializationError, SessionError
from agentry.files import FileSearchMatch, FileSearchResult
from agentry.skills import SkillScriptResult
from agentry.types import AgentResponse, ChatResponseUpdate
from agentry.workflows import WorkflowCheckpoint


@dataclass(frozen=True)
class Point(SerializationMixin):
    x: int
    y: int


@dataclass(frozen=True)
class Path(SerializationMixin):
    name: str
    points: list[Point] = field(default_factory=list[Point])
    start: Point | None = None


def test_a_dataclass_gets_all_four_conversions_from_its_fields() -> None:
    path = Path("walk", [Point(1, 2), Point(3, 4)], start=Point(0, 0))

    assert path.to_dict() == {
        "name": "walk",
        "points": [{"x": 1, "y": 2}, {"x": 3, "y": 4}],
        "start": {"x": 0, "y": 0},
    }
    assert Path.from_dict(path.to_dict()) == path
    assert Path.from_json(path.to_json()) == path
    assert Path.from_dict({"name": "empty"}) == Path("empty")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"name": "walk", "points": [{"x": "1", "y": 2}]},
            r"field 'points\[0\]\.x' should be a valid integer",
        ),
        ({"name": "walk", "speed": 3}, r"unknown Path fields \['speed'\]"),
        ({"points": []}, "field 'name' is missing"),
        ({"name": "walk", "start": 5}, "field 'start'"),
    ],
)
def test_wrong_fields_are_named_and_nothing_is_coerced(
    data: dict[str, object], message: str
) -> None:
    with pytest.raises(SerializationError, match=message):
        Path.from_dict(data)


def test_text_that_is_not_json_or_not_an_object_is_refused() -> None:
    with pytest.raises(SerializationError, match="the Path is not valid JSON"):
        Path.from_json("{name")
    with pytest.raises(SerializationError, match=r"a Path must be a JSON object, not \[1\]"):
        Path.from_json("[1]")
    with pytest.raises(SerializationError, match="nested too deeply"):
        Path.from_json("[" * 100_000 + "]" * 100_000)


def test_a_value_that_is_not_json_is_a_clear_error() -> None:
    with pytest.raises(SerializationError, match="this Point is not plain JSON"):
        Point(float("nan"), 1).to_json()  # type: ignore[arg-type]


def test_a_class_that_is_not_a_dataclass_must_write_its_dict_conversions() -> None:
    class Opaque(SerializationMixin):
        pass

    with pytest.raises(NotImplementedError, match="Opaque must implement to_dict"):
        Opaque().to_json()
    with pytest.raises(NotImplementedError, match="Opaque must implement from_dict"):
        Opaque.from_json("{}")


def test_the_file_search_results_are_serializable_dtos() -> None:
    result = FileSearchResult("notes.md", "a\nb", [FileSearchMatch(2, "b")])
    assert FileSearchResult.from_json(result.to_json()) == result
    with pytest.raises(SerializationError, match="field 'matches'"):
        FileSearchResult.from_dict({"file_name": "x", "snippet": "", "matches": 3})


def test_agentry_objects_share_the_json_pair() -> None:
    for cls in (Message, AgentResponse, ChatResponseUpdate, AgentSession, WorkflowCheckpoint):
        assert issubclass(cls, SerializationMixin)
        assert "to_json" not in vars(cls), f"{cls.__name__} writes its own to_json"
    message = Message("user", ["hi"])
    assert Message.from_json(message.to_json()) == message
    session = AgentSession(state={"n": 1})
    assert AgentSession.from_json(session.to_json()).state == {"n": 1}
    with pytest.raises(SessionError, match="a session must be a JSON object"):
        AgentSession.from_json("[]")


def test_the_search_results_and_script_results_share_the_base() -> None:
    found = FileSearchResult("a.md", "one\ntwo", [FileSearchMatch(line_number=2, line="two")])
    ran = SkillScriptResult(exit_code=0, stdout="ok\n", stderr="")

    for value in (found, found.matches[0], ran):
        assert isinstance(value, SerializationMixin)
        assert type(value).from_json(value.to_json()) == value
    assert found.to_dict() == {
        "file_name": "a.md",
        "snippet": "one\ntwo",
        "matches": [{"line_number": 2, "line": "two"}],
    }
    assert ran.to_dict() == {
        "exit_code": 0,
        "stdout": "ok\n",
        "stderr": "",
        "timed_out": False,
        "truncated": False,
    }


def test_importing_the_base_loads_no_validation_library() -> None:
    code = "import sys\nfrom agentry import SerializationMixin\nprint('pydantic' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "False"
