"""Runs a script as on a machine where part of the local model is not installed.

Usage: `python first_run.py weights|llama SCRIPT [ARGS...]`, or `-m agentry.cli` as SCRIPT
for the `agentry` command. `weights`: the default model's first piece lives in a package
that does not exist. `llama`: the default model is a small fake one that is present, but
llama-cpp-python cannot be imported.
"""

from __future__ import annotations

import dataclasses
import hashlib
import runpy
import sys
import tempfile
from pathlib import Path

from agentry.local import DEFAULT_LOCAL_MODEL, LOCAL_MODELS, ModelPart


def _without_weights() -> None:
    spec = LOCAL_MODELS[DEFAULT_LOCAL_MODEL]
    absent = ModelPart("agentry_absent_weights", "data/part01.bin", spec.parts[0].size)
    LOCAL_MODELS[DEFAULT_LOCAL_MODEL] = dataclasses.replace(spec, parts=(absent, *spec.parts[1:]))


def _without_llama_cpp() -> None:
    site = Path(tempfile.mkdtemp())
    (site / "fake_weights" / "data").mkdir(parents=True)
    (site / "fake_weights" / "__init__.py").write_text("")
    weights = b"GGUF and nothing else"
    (site / "fake_weights" / "data" / "model.gguf").write_bytes(weights)
    sys.path.insert(0, str(site))
    LOCAL_MODELS[DEFAULT_LOCAL_MODEL] = dataclasses.replace(
        LOCAL_MODELS[DEFAULT_LOCAL_MODEL],
        parts=(ModelPart("fake_weights", "data/model.gguf", len(weights)),),
        sha256=hashlib.sha256(weights).hexdigest(),
    )
    sys.modules["llama_cpp"] = None  # type: ignore[assignment]  # pyright: ignore[reportArgumentType]


if __name__ == "__main__":
    missing, target, *arguments = sys.argv[1:]
    {"weights": _without_weights, "llama": _without_llama_cpp}[missing]()
    if target == "-m":
        module, *arguments = arguments
        sys.argv = [module, *arguments]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    else:
        sys.argv = [target, *arguments]
        runpy.run_path(target, run_name="__main__")
