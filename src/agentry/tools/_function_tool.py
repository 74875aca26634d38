"""`FunctionTool` and the `@tool` decorator: Python functions the model can call."""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast, overload, runtime_checkable

from agentry.errors import ToolExecutionError
from agentry.middleware import FunctionInvocationContext
from agentry.tools._schema import SignatureModel, build_signature_model, warn_untyped_parameters
from agentry.tools._worker_threads import call_in_worker_thread

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["ApprovalMode", "FunctionTool", "ToolProtocol", "tool", "tool_result_to_text"]

ApprovalMode = Literal["always_require", "never_require"]


@runtime_checkable
class ToolProtocol(Protocol):
    """What every tool has: a name the model calls it by and a description."""

    @property
    def name(self) -> str:
        """The name the model uses to call the tool."""
        ...

    @property
    def description(self) -> str:
        """What the tool does, for the model."""
        ...


class FunctionTool:
    """A function the model can call, with a JSON schema for its arguments.

    The schema comes from the function's signature (type hints, `Annotated` descriptions,
    pydantic `Field`s, Google-style `Args:` docstrings) or from `input_model`, a pydantic
    model class or a JSON schema dict. Arguments are validated before the function runs. A
    parameter without a type hint says nothing to the model and accepts any value, so it
    raises a `ToolSchemaWarning`.

    A sync function runs in a worker thread, so a slow one neither blocks the event loop
    nor the other calls of its turn; `run_inline=True` runs it on the event loop instead,
    which saves the thread hop for quick pure functions. Used bare, `@FunctionTool` works
    like `@tool`.

    Example:
        >>> def add(a: int, b: int) -> int:
        ...     '''Add two numbers.'''
        ...     return a + b
        >>> adder = FunctionTool(func=add)
        >>> adder.parameters()["required"]
        ['a', 'b']
    """

    def __init__(
        self,
        func: Callable[..., object] | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        input_model: type[BaseModel] | Mapping[str, Any] | None = None,
        approval_mode: ApprovalMode = "never_require",
        max_invocations: int | None = None,
        run_inline: bool = False,
        additional_properties: dict[str, Any] | None = None,
    ) -> None:
        if func is None and name is None:
            raise ValueError("FunctionTool needs a func or a name (a declaration-only tool)")
        if approval_mode not in ("always_require", "never_require"):
            raise ValueError(
                f"approval_mode must be 'always_require' or 'never_require', not {approval_mode!r}"
            )
        self.func = func
        self.name: str = name or getattr(func, "__name__", "tool")
        self.description: str = (
            description if description is not None else _summary(inspect.getdoc(func) or "")
        )
        self.approval_mode: ApprovalMode = approval_mode
        self.max_invocations = max_invocations
        self.invocation_count = 0
        self.additional_properties = additional_properties or {}
        self._input_model = input_model
        self._signature: SignatureModel | None = None
        self._schema: dict[str, Any] | None = None
        self.run_inline = run_inline
        self._is_async = func is not None and inspect.iscoroutinefunction(func)
        self._context_parameter: str | None = None
        self._accepts_kwargs = False
        if func is not None:
            self._inspect_parameters(func)
        self.takes_context: bool = self._context_parameter is not None or self._accepts_kwargs
        """Whether the function is given the invocation context: it has a parameter
        annotated `FunctionInvocationContext`, or takes `**kwargs` (the run's
        `function_invocation_kwargs`)."""

    def _inspect_parameters(self, func: Callable[..., object]) -> None:
        untyped: list[str] = []
        for parameter in inspect.signature(func).parameters.values():
            annotation = parameter.annotation
            if parameter.kind is inspect.Parameter.VAR_KEYWORD:
                self._accepts_kwargs = True
            elif (
                annotation is FunctionInvocationContext or annotation == "FunctionInvocationContext"
            ):
                self._context_parameter = parameter.name
            elif (
                annotation is inspect.Parameter.empty
                and parameter.kind is not inspect.Parameter.VAR_POSITIONAL
            ):
                untyped.append(parameter.name)
        if untyped and self._input_model is None:
            warn_untyped_parameters(self.name, func, untyped)

    @property
    def declaration_only(self) -> bool:
        """Whether the tool has no function here (someone else runs it)."""
        return self.func is None

    def _signature_model(self) -> SignatureModel:
        if self._signature is None:
            self._signature = build_signature_model(
                self.name,
                self.func,
                self._input_model,
                skip={self._context_parameter} if self._context_parameter else set(),
            )
        return self._signature

    def parameters(self) -> dict[str, Any]:
        """The JSON schema of the tool's arguments."""
        if self._schema is None:
            self._schema = self._signature_model().json_schema()
        return self._schema

    def to_json_schema_spec(self) -> dict[str, Any]:
        """The tool as a function declaration: name, description and parameters."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters(),
            },
        }

    def validate_arguments(self, arguments: Mapping[str, object] | None) -> dict[str, Any]:
        """The arguments validated and converted to what the function takes.

        Raises:
            ToolArgumentsError: The arguments do not fit the schema; the message says how.
        """
        return (self._signature or self._signature_model()).validate(arguments or {})

    async def invoke(
        self,
        *,
        arguments: Mapping[str, object] | None = None,
        context: FunctionInvocationContext | None = None,
        validated: bool = False,
    ) -> Any:
        """Validate `arguments` and call the function.

        A sync function runs in a worker thread (with the caller's context variables), so
        it neither blocks the event loop nor the other calls of its turn; with
        `run_inline=True` it runs on the event loop itself.

        Args:
            arguments: The arguments, as the model sent them.
            context: Passed to a parameter annotated with `FunctionInvocationContext`; a
                function that takes `**kwargs` also receives `context.kwargs` (the run's
                `function_invocation_kwargs`), below the model's arguments of the same name.
            validated: The arguments were validated already.

        Raises:
            ToolArgumentsError: The arguments do not fit the schema.
            ToolExecutionError: The tool cannot run (no function, invocation limit reached).
        """
        if self.func is None:
            raise ToolExecutionError(
                f"tool {self.name!r} is declaration-only: it has no function to run here"
            )
        if self.max_invocations is not None and self.invocation_count >= self.max_invocations:
            raise ToolExecutionError(
                f"tool {self.name!r} reached its limit of {self.max_invocations} invocations"
            )
        values: Mapping[str, object] = (
            (arguments or {}) if validated else self.validate_arguments(arguments)
        )
        if self._context_parameter is not None:
            values = {**values, self._context_parameter: context}
        if self._accepts_kwargs and context is not None and context.kwargs:
            values = {**context.kwargs, **values}
        self.invocation_count += 1
        if self._is_async:
            return await cast("Callable[..., Awaitable[object]]", self.func)(**values)
        if self.run_inline:
            result = self.func(**values)
        else:
            result = await call_in_worker_thread(self.func, values)
        if type(result) in _PLAIN_RESULTS or not inspect.isawaitable(result):
            return result
        return await result

    async def __call__(self, **arguments: object) -> Any:
        """Call the tool directly with keyword arguments (validated like a model's call)."""
        return await self.invoke(arguments=arguments)

    def __repr__(self) -> str:
        return f"FunctionTool(name={self.name!r})"


@overload
def tool(func: Callable[..., object], /) -> FunctionTool: ...


@overload
def tool(
    func: None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    approval_mode: ApprovalMode = "never_require",
    max_invocations: int | None = None,
    run_inline: bool = False,
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    func: Callable[..., object] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    approval_mode: ApprovalMode = "never_require",
    max_invocations: int | None = None,
    run_inline: bool = False,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Turn a sync or async function into a :class:`FunctionTool`.

    A sync function runs in a worker thread; `run_inline=True` runs it on the event loop,
    for quick pure functions (it then blocks every other task while it runs).

    Example:
        >>> from typing import Annotated
        >>> @tool(approval_mode="always_require")
        ... def delete_file(path: Annotated[str, "The file to delete"]) -> str:
        ...     '''Delete a file.'''
        ...     return f"deleted {path}"
        >>> delete_file.name
        'delete_file'
    """

    def wrap(function: Callable[..., object]) -> FunctionTool:
        return FunctionTool(
            func=function,
            name=name,
            description=description,
            approval_mode=approval_mode,
            max_invocations=max_invocations,
            run_inline=run_inline,
        )

    return wrap(func) if func is not None else wrap


def tool_result_to_text(result: object) -> str:
    """A tool result as the text a model reads: strings as they are, contents (see
    `tool_result_contents`) as their text with media described, the rest as JSON."""
    if isinstance(result, str):
        return result
    from agentry.tools._result_contents import describe_content, tool_result_contents

    contents = tool_result_contents(result)
    if contents is not None:
        return "\n".join(text for text in map(describe_content, contents) if text)
    dump = getattr(result, "model_dump_json", None)
    if callable(dump):
        return cast("str", dump())
    to_dict = getattr(result, "to_dict", None)
    if callable(to_dict):
        result = to_dict()
    try:
        return json.dumps(result, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(result)


_PLAIN_RESULTS = frozenset((str, int, float, bool, dict, list, tuple, bytes, type(None)))
"""Result types a sync function returns that are never awaitable (checked first: quick)."""


def _summary(docstring: str) -> str:
    """The docstring up to its first section header (`Args:`, `Returns:`...)."""
    lines: list[str] = []
    for line in docstring.strip().splitlines():
        if line.strip().rstrip(":") in _SECTION_HEADERS and line.strip().endswith(":"):
            break
        lines.append(line)
    return "\n".join(lines).strip()


_SECTION_HEADERS = frozenset(
    {
        "Args",
        "Arguments",
        "Parameters",
        "Returns",
        "Return",
        "Raises",
        "Yields",
        "Example",
        "Examples",
        "Note",
        "Notes",
    }
)
