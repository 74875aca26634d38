"""The embedded local model: a GGUF file run in-process on the CPU through llama.cpp.

Needs the `local` extra (`pip install 'agentry[local]'`); importing this package does not load
llama.cpp, only the first request of a `LocalChatClient` does.

Example:
    >>> from agentry.local import LocalChatClient, LOCAL_MODELS
    >>> for name in sorted(LOCAL_MODELS):
    ...     print(name)
    gemma3-270m
    qwen2.5-coder-0.5b-instruct
    qwen2.5-coder-1.5b-instruct
    smollm2-135m-instruct
    >>> client = LocalChatClient()  # the default model; nothing is loaded yet
"""

from agentry.local._client import LocalChatClient, LocalModelInfo
from agentry.local._errors import (
    LocalModelError,
    ModelChecksumError,
    ModelFileError,
    ModelNotInstalledError,
    UnknownLocalModelError,
)
from agentry.local._llama_server import llama_server_arguments
from agentry.local._model_files import default_cache_dir, resolve_model_file
from agentry.local._registry import (
    DEFAULT_LOCAL_MODEL,
    LOCAL_MODELS,
    LocalModelSpec,
    ModelPart,
    get_local_model,
)

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "LOCAL_MODELS",
    "LocalChatClient",
    "LocalModelError",
    "LocalModelInfo",
    "LocalModelSpec",
    "ModelChecksumError",
    "ModelFileError",
    "ModelNotInstalledError",
    "ModelPart",
    "UnknownLocalModelError",
    "default_cache_dir",
    "get_local_model",
    "llama_server_arguments",
    "resolve_model_file",
]
