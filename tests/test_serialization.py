"""SerializationMixin: one serialization base for agentry's small data classes."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field

import pytest

from agentry import FileSearchMatch, FileSearchResult, SerializationMixin
from agentry.errors import SerializationError
from agentry.skills import SkillScriptResult


@dataclass(frozen=True)
class Stop(SerializationMixin):
    name: str
    minutes: int = 0


@dataclass
class Route(SerializationMixin):
    line: str
    stops: list[Stop] = field(default_factory=list[Stop])
    note: str | None = None


def test_a_dataclass_round_trips_through_dicts_and_json_with_nested_values() -> None:
    route = Route("7", [Stop("Harbour"), Stop("Hill", 4)])

    assert route.to_dict() == {
        "line": "7",
        "stops": [{"name": "Harbour", "minutes": 0}, {"name": "Hill", "minutes": 4}],
        "note": None,
    }
    assert Route.from_dict(route.to_dict()) == route
    assert Route.from_json(route.to_json()) == route
    assert json.loads(route.to_json())["stops"][1]["name"] == "Hill"


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


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"snippet": "x"}, "file_name"),
        (
            {"file_name": "a", "snippet": "x", "matches": [{"line_number": "one", "line": "x"}]},
            "matches.0.line_number",
        ),
        ({"file_name": "a", "snippet": "x", "matches": 5}, "matches"),
        ({"file_name": {"nested": True}, "snippet": "x"}, "file_name"),
    ],
)
def test_a_malformed_dict_is_refused_naming_the_field(data: dict[str, object], named: str) -> None:
    with pytest.raises(SerializationError, match=f"cannot read a FileSearchResult: {named}"):
        FileSearchResult.from_dict(data)


def test_what_is_not_a_dict_or_not_json_is_refused_clearly() -> None:
    with pytest.raises(SerializationError, match="read from a dict, not from list"):
        FileSearchResult.from_dict([1, 2])  # type: ignore[arg-type]
    with pytest.raises(SerializationError, match="not a JSON document"):
        FileSearchResult.from_json("{not json")
    with pytest.raises(SerializationError, match="not a JSON document"):
        FileSearchResult.from_json("[" * 100_000 + "]" * 100_000)


def test_a_class_that_is_not_a_dataclass_is_told_to_be_one() -> None:
    class Loose(SerializationMixin):
        pass

    with pytest.raises(TypeError, match="decorate it with @dataclass"):
        Loose().to_dict()


def test_importing_the_base_loads_no_validation_library() -> None:
    code = "import sys\nfrom agentry import SerializationMixin\nprint('pydantic' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "False"
