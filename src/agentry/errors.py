"""The error hierarchy of agentry.

Every error agentry raises on purpose is an :class:`AgentryError`. Messages say what was
wrong and what to do about it.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Collection, Mapping, Sequence

__all__ = [
    "EXTRA_PACKAGES",
    "AgentryError",
    "ChatClientConnectionError",
    "ChatClientError",
    "ChatClientTimeoutError",
    "ContentError",
    "ExperimentalWarning",
    "HistoryStoreError",
    "MiddlewareError",
    "MissingExtraError",
    "OutputValidationError",
    "ScriptExhaustedError",
    "SerializationError",
    "SessionError",
    "StreamInterruptedError",
    "StructuredOutputError",
    "ToolArgumentsError",
    "ToolError",
    "ToolExecutionError",
    "ToolExecutionException",
    "ToolLoopLimitError",
    "ToolNameConflictError",
    "UnknownToolError",
    "UsageLimitExceeded",
    "UsageLimitExceededError",
    "lazy_exports",
    "require_extra",
]


class AgentryError(Exception):
    """Base class of every error agentry raises on purpose."""


class SerializationError(AgentryError, ValueError):
    """A dict or JSON document could not be turned back into an agentry object."""


class ContentError(AgentryError, ValueError):
    """A message content is malformed, such as function-call arguments that are not JSON."""


class StructuredOutputError(AgentryError, ValueError):
    """A model's answer does not match the requested response format."""


class OutputValidationError(StructuredOutputError):
    """A model's answer does not validate against the response format, after every retry.

    Attributes:
        text: The model's last answer, as it came.
        errors: What is wrong with it, one problem per item (`"age: Input should be a
            valid integer"`, or why it is not JSON).
        attempts: How many answers the model gave in all (1 + the retries used).
    """

    def __init__(
        self, message: str, *, text: str, errors: Sequence[str], attempts: int = 1
    ) -> None:
        super().__init__(message)
        self.text = text
        self.errors = list(errors)
        self.attempts = attempts


class UsageLimitExceededError(AgentryError):
    """A run reached one of its usage limits (model requests, tokens or tool calls).

    Raised before a model call or a batch of tool calls that the limit forbids, or after a
    model call whose tokens went past it. The run's new messages are not added to the
    session.

    Attributes:
        limit: The limit reached: `"requests"`, `"tool_calls"`, `"input_tokens"`,
            `"output_tokens"` or `"total_tokens"`.
        scope: `"run"` (the limits of one run) or `"session"` (of the whole session).
        value: The limit's value.
        usage: The usage counted against it so far, by the same names as `limit`.
    """

    def __init__(
        self, message: str, *, limit: str, scope: str, value: int, usage: Mapping[str, int]
    ) -> None:
        super().__init__(message)
        self.limit = limit
        self.scope = scope
        self.value = value
        self.usage = dict(usage)


UsageLimitExceeded = UsageLimitExceededError
"""Alias of :class:`UsageLimitExceededError`."""


class ChatClientError(AgentryError):
    """A chat client could not get a response from its model.

    Attributes:
        status_code: The HTTP status of the provider's answer, where there was one.
        retry_after: The seconds the provider asked to wait before trying again (its
            `Retry-After` or `retry-after-ms` header), where it said.
        usage_details: Tokens the failed call was billed for, where the provider said,
            over all its attempts (retries and fallbacks add them to the response that
            finally comes).
        attempts: How many attempts the retry policy made before raising this error.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        retry_after: float | None = None,
        usage_details: Mapping[str, int] | None = None,
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.retry_after = retry_after
        self.usage_details = usage_details
        self.attempts = 1


class ChatClientTimeoutError(ChatClientError):
    """The model's service did not answer in time (a transient failure, retried)."""


class ChatClientConnectionError(ChatClientError):
    """The model's service could not be reached, or dropped the connection before the
    answer began (a transient failure, retried)."""


class StreamInterruptedError(ChatClientError):
    """A streamed answer broke off after some of it had reached the caller.

    It is not retried: a new attempt would repeat what the caller already received. The
    error it broke off with is its `__cause__`.

    Attributes:
        updates_received: How many updates reached the caller before the break.
    """

    def __init__(
        self,
        message: str,
        *,
        updates_received: int,
        status_code: int | None = None,
        usage_details: Mapping[str, int] | None = None,
    ) -> None:
        super().__init__(message, status_code=status_code, usage_details=usage_details)
        self.updates_received = updates_received


class ScriptExhaustedError(ChatClientError):
    """A :class:`~agentry.clients.scripted.ScriptedChatClient` was asked for more responses
    than it was given."""


class ToolError(AgentryError):
    """Base class of tool errors."""


class ToolNameConflictError(ToolError, ValueError):
    """Two tools of one run have the same name, so the model could not tell them apart."""


class UnknownToolError(ToolError, LookupError):
    """The model called a tool that the run does not offer."""


class ToolArgumentsError(ToolError, ValueError):
    """A tool call's arguments are malformed or fail the tool's validation."""


class ToolExecutionError(ToolError):
    """A tool ran and failed, or could not be run."""


ToolExecutionException = ToolExecutionError
"""Alias of :class:`ToolExecutionError`, under the name the specification uses."""


class ToolLoopLimitError(ToolError):
    """The model still called tools when the function-calling loop, at its limit, asked it
    to answer without them; the message names the limit and how to raise it."""


class MiddlewareError(AgentryError):
    """A middleware is malformed or misused."""


class SessionError(AgentryError, ValueError):
    """A session could not be created or restored."""


class HistoryStoreError(AgentryError):
    """A history store could not read or write messages."""


class ExperimentalWarning(UserWarning):
    """An experimental API of agentry was used: it works and is tested, but may change in
    a minor release.

    Emitted once per feature per process. The message starts with the feature's id (see
    `agentry.features.ExperimentalFeature`), so a filter can silence one feature or all:

    Example:
        >>> import warnings
        >>> warnings.filterwarnings("ignore", message="MCP_LONG_RUNNING_TASKS")
        >>> warnings.filterwarnings("ignore", category=ExperimentalWarning)
    """


class MissingExtraError(AgentryError, ImportError):
    """An optional integration was used without its extra installed.

    The message names the command that installs it (`pip install 'agentry[EXTRA]'`).

    Attributes:
        extra: The extra to install.
        missing: The package found missing, where known (also `name`, as on `ImportError`).
    """

    def __init__(self, feature: str, extra: str, *, missing: str | None = None) -> None:
        what = f" ({missing} is missing)" if missing else ""
        super().__init__(
            f"{feature} needs the optional dependencies of the '{extra}' extra{what}; "
            f"install them with: pip install 'agentry[{extra}]'",
            name=missing,
        )
        self.extra = extra
        self.missing = missing


EXTRA_PACKAGES: Mapping[str, tuple[str, ...]] = {
    "a2a": ("a2a", "starlette", "sqlalchemy", "uvicorn"),
    "ag-ui": ("ag_ui", "starlette", "uvicorn"),
    "local": ("llama_cpp",),
    "mcp": ("mcp",),
    "openai": ("openai",),
    "openai-server": ("openai", "starlette", "uvicorn"),
    "otel": ("opentelemetry.sdk",),
}
"""The packages each extra provides that agentry imports, by extra name."""


def require_extra(extra: str, *, feature: str, packages: Sequence[str] | None = None) -> None:
    """Check, when an object is built, that the packages of an extra can be imported.

    Nothing is imported: the check only finds the packages, so it is cheap and a
    missing one is reported at once, not at first use.

    Args:
        extra: The extra that provides them (`"mcp"`, `"a2a"`...).
        feature: What needs them, for the message (`"MCPStdioTool"`).
        packages: The packages to look for (default: those of `EXTRA_PACKAGES[extra]`).

    Raises:
        MissingExtraError: A package is missing.

    Example:
        >>> require_extra("mcp", feature="MCPStdioTool", packages=["json"])
    """
    for package in packages if packages is not None else EXTRA_PACKAGES.get(extra, ()):
        if not _importable(package):
            raise MissingExtraError(feature, extra, missing=package)


def lazy_exports(
    package: str,
    exports: Mapping[str, str],
    *,
    extra: str | None = None,
    feature: str | None = None,
    extra_packages: Collection[str] = (),
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """A package's module `__getattr__` and `__dir__`, loading each name on first use.

    A name is imported from its module when first asked for and then kept in the package,
    so importing the package stays cheap. With an `extra`, an import that fails for lack
    of one of `extra_packages` (or with a `MissingExtraError`) raises a
    `MissingExtraError` naming `pip install 'agentry[EXTRA]'`.

    Args:
        package: The package's `__name__`.
        exports: The module each name comes from, by name.
        extra: The extra that the names' modules need, if any.
        feature: What needs the extra, for the message; `{name}` stands for the name
            asked for (default: the package).
        extra_packages: The top-level packages of the extra.

    Returns:
        The package's `__getattr__` and `__dir__` (which lists its `__all__`).

    Example:
        >>> __getattr__, __dir__ = lazy_exports("agentry.x", {"Thing": "agentry.x._thing"})
    """

    def load(name: str) -> object:
        home = exports.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        try:
            module = importlib.import_module(home)
        except ImportError as error:
            missing = (error.name or "").split(".")[0]
            if extra is None or not (
                isinstance(error, MissingExtraError) or missing in extra_packages
            ):
                raise
            what = (feature or package).replace("{name}", name)
            raise MissingExtraError(what, extra) from error
        value: object = getattr(module, name)
        setattr(sys.modules[package], name, value)
        return value

    def names() -> list[str]:
        return sorted(getattr(sys.modules[package], "__all__", exports))

    return load, names


def _importable(package: str) -> bool:
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):  # a parent is missing, or blocked in sys.modules
        return False
