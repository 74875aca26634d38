from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentry.skills import SkillError, discover_skills

from .helpers import write_skill


def test_skills_are_found_in_nested_directories(tmp_path: Path) -> None:
    write_skill(tmp_path, "alpha")
    write_skill(tmp_path / "team" / "writing", "beta")
    write_skill(tmp_path / "a" / "b" / "c", "gamma")
    assert [s.name for s in discover_skills([tmp_path])] == ["gamma", "alpha", "beta"]


def test_a_root_that_is_a_skill_is_found(tmp_path: Path) -> None:
    directory = write_skill(tmp_path, "alpha")
    assert [s.name for s in discover_skills([directory])] == ["alpha"]


def test_search_depth_is_bounded(tmp_path: Path) -> None:
    write_skill(tmp_path / "one", "shallow")  # depth 2 below the root
    write_skill(tmp_path / "one" / "two" / "three", "deep")  # depth 4
    assert [s.name for s in discover_skills([tmp_path], max_depth=2)] == ["shallow"]
    assert [s.name for s in discover_skills([tmp_path], max_depth=4)] == ["shallow", "deep"]
    assert discover_skills([tmp_path], max_depth=0) == []
    with pytest.raises(ValueError, match="max_depth"):
        discover_skills([tmp_path], max_depth=-1)


def test_a_skill_folder_is_not_searched_for_more_skills(tmp_path: Path) -> None:
    outer = write_skill(tmp_path, "outer")
    write_skill(outer / "references", "inner")
    assert [s.name for s in discover_skills([tmp_path])] == ["outer"]


def test_hidden_directories_are_skipped(tmp_path: Path) -> None:
    write_skill(tmp_path / ".cache", "hidden")
    write_skill(tmp_path, "shown")
    assert [s.name for s in discover_skills([tmp_path])] == ["shown"]


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need privileges on Windows")
def test_linked_directories_are_not_followed(tmp_path: Path) -> None:
    write_skill(tmp_path / "elsewhere", "linked")
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "link").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    assert discover_skills([tmp_path / "root"]) == []


def test_invalid_skills_are_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_skill(tmp_path, "good")
    write_skill(tmp_path, "bad-name", header="name: Bad_Name\ndescription: d\n")
    write_skill(tmp_path, "mismatch", header="name: other\ndescription: d\n")
    write_skill(tmp_path, "no-description", header="name: no-description\n")
    (tmp_path / "no-header").mkdir()
    (tmp_path / "no-header" / "SKILL.md").write_text("just text", encoding="utf-8")
    with caplog.at_level("WARNING", logger="agentry.skills"):
        skills = discover_skills([tmp_path])
    assert [s.name for s in skills] == ["good"]
    warnings = {r.getMessage() for r in caplog.records if r.name == "agentry.skills"}
    assert len(warnings) == 4
    expected = {
        "bad-name": "'name' 'Bad_Name' may only hold",
        "mismatch": "must match its directory name",
        "no-description": "needs a 'description' field",
        "no-header": "must start with a '---' line",
    }
    for folder, problem in expected.items():
        path = str(tmp_path / folder / "SKILL.md")
        assert any(path in w and problem in w for w in warnings), (folder, warnings)
    assert all(r.levelname == "WARNING" for r in caplog.records)


def test_several_roots_are_searched_in_order(tmp_path: Path) -> None:
    write_skill(tmp_path / "first", "zeta")
    write_skill(tmp_path / "second", "alpha")
    found = discover_skills([tmp_path / "first", tmp_path / "second"])
    assert [s.name for s in found] == ["zeta", "alpha"]


def test_a_missing_root_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SkillError, match="does not exist or is not a folder"):
        discover_skills([tmp_path / "missing"])
