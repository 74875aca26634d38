"""Argument schemas of function tools, built lazily so importing agentry stays fast."""

from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from agentry.errors import ToolArgumentsError

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = [
    "SignatureModel",
    "ToolSchemaWarning",
    "build_signature_model",
    "warn_untyped_parameters",
]


_DICT = (dict,)
"""Checked before `Mapping`: a type test is quicker than the abstract class's check."""

_ARG_LINE = re.compile(r"^\s{2,}(\*{0,2}\w+)(?:\s*\([^)]*\))?:\s*(.*)$")


class SignatureModel:
    """Validates a tool's arguments and knows their JSON schema."""

    def __init__(
        self, tool_name: str, model: type[BaseModel] | None, schema: Mapping[str, object] | None
    ) -> None:
        self._tool_name = tool_name
        self._model = model
        self._schema = dict(schema) if schema is not None else None
        # the model's own validator, called straight (`model_validate` adds a layer per
        # call); taken at the first call, when a model with forward references is complete
        self._validate_python: Callable[[object], BaseModel] | None = None

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of the arguments object."""
        if self._schema is None:
            assert self._model is not None
            schema = self._model.model_json_schema()
            schema.pop("title", None)
            self._schema = schema
        return self._schema

    def validate(self, arguments: Mapping[str, object]) -> dict[str, Any]:
        """Validated arguments, converted to the function's parameter types."""
        if type(arguments) not in _DICT and not isinstance(arguments, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ToolArgumentsError(
                f"arguments for tool {self._tool_name!r} must be an object, "
                f"got {type(arguments).__name__}"
            )
        if self._model is None:
            return self._validate_against_schema(arguments)
        try:
            validate = self._validate_python
            if validate is None:
                validate = self._validate_python = (
                    self._model.__pydantic_validator__.validate_python
                )
            instance = validate(arguments)
        except Exception as error:
            from pydantic import ValidationError

            if not isinstance(error, ValidationError):
                raise
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in error.errors()
            )
            raise ToolArgumentsError(
                f"invalid arguments for tool {self._tool_name!r}: {problems}"
            ) from None
        # a model instance keeps exactly its fields' values in `__dict__` (extras and
        # private attributes live elsewhere), and this instance is nobody else's
        values: dict[str, Any] = instance.__dict__  # pyright: ignore[reportAssignmentType]
        return values

    def _validate_against_schema(self, arguments: Mapping[str, object]) -> dict[str, Any]:
        schema = self.json_schema()
        missing = [name for name in schema.get("required", ()) if name not in arguments]
        if missing:
            raise ToolArgumentsError(
                f"invalid arguments for tool {self._tool_name!r}: missing required "
                f"{', '.join(repr(m) for m in missing)}"
            )
        return dict(arguments)


def build_signature_model(
    tool_name: str,
    func: Callable[..., object] | None,
    input_model: type[BaseModel] | Mapping[str, Any] | None,
    *,
    skip: set[str],
) -> SignatureModel:
    """The argument model of a tool: `input_model` if given, else from `func`'s signature."""
    if isinstance(input_model, Mapping):
        return SignatureModel(tool_name, None, input_model)
    if input_model is not None:
        return SignatureModel(tool_name, input_model, None)
    if func is None:
        return SignatureModel(tool_name, None, {"type": "object", "properties": {}})
    return SignatureModel(tool_name, _model_from_signature(tool_name, func, skip), None)


def _model_from_signature(
    tool_name: str, func: Callable[..., Any], skip: set[str]
) -> type[BaseModel]:
    from typing import Annotated, get_args, get_origin, get_type_hints

    from pydantic import ConfigDict, Field, create_model
    from pydantic.fields import FieldInfo

    hints = get_type_hints(func, include_extras=True)
    descriptions = _docstring_arguments(inspect.getdoc(func) or "")
    fields: dict[str, Any] = {}
    for parameter in inspect.signature(func).parameters.values():
        if parameter.name in skip or parameter.kind in (
            inspect.Parameter.VAR_KEYWORD,
            inspect.Parameter.VAR_POSITIONAL,
        ):
            continue
        annotation: Any = hints.get(parameter.name, Any)
        default: Any = ... if parameter.default is inspect.Parameter.empty else parameter.default
        description = descriptions.get(parameter.name)
        if get_origin(annotation) is Annotated:
            base, *metadata = get_args(annotation)
            strings = [m for m in metadata if isinstance(m, str)]
            others = [m for m in metadata if not isinstance(m, str)]
            if strings:
                description = strings[0]
            annotation = Annotated[(base, *others)] if others else base  # type: ignore[valid-type]
        if isinstance(default, FieldInfo):
            fields[parameter.name] = (annotation, default)
        else:
            fields[parameter.name] = (annotation, Field(default, description=description))
    model_name = "".join(part.capitalize() for part in re.split(r"[^0-9a-zA-Z]+", tool_name))
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"{model_name or 'Tool'}Arguments",
        __config__=ConfigDict(arbitrary_types_allowed=True),
        **fields,
    )


def _docstring_arguments(docstring: str) -> dict[str, str]:
    """Parameter descriptions from a Google-style `Args:` section."""
    descriptions: dict[str, str] = {}
    in_args = False
    current: str | None = None
    for line in docstring.splitlines():
        stripped = line.strip()
        if stripped in ("Args:", "Arguments:", "Parameters:"):
            in_args = True
            continue
        if not in_args:
            continue
        if stripped and not line.startswith(" "):
            break
        match = _ARG_LINE.match(line)
        if match and (len(line) - len(line.lstrip())) <= 4:
            name = match.group(1).lstrip("*")
            descriptions[name] = match.group(2).strip()
            current = name
        elif current and stripped:
            descriptions[current] = f"{descriptions[current]} {stripped}".strip()
    return descriptions


class ToolSchemaWarning(UserWarning):
    """A tool's argument schema tells the model less than it should (a parameter without a
    type hint: the model is not told its type and any value passes validation)."""


def warn_untyped_parameters(tool_name: str, func: Callable[..., Any], names: Sequence[str]) -> None:
    """Warn, pointing at `func`'s definition, that parameters `names` have no type hint."""
    listed = ", ".join(repr(name) for name in names)
    function_name = getattr(func, "__qualname__", tool_name)
    message = (
        f"tool {tool_name!r}: parameter{'s' if len(names) > 1 else ''} {listed} of "
        f"{function_name}() {'have' if len(names) > 1 else 'has'} no type hint, so the model "
        f'is not told what to send and any value is accepted (a model may send "1" for a '
        f"number); annotate {'them' if len(names) > 1 else 'it'}, e.g. `{names[0]}: int`"
    )
    code: Any = getattr(func, "__code__", None)
    module_globals: Any = getattr(func, "__globals__", None)
    if code is None or not isinstance(module_globals, dict):
        warnings.warn(message, ToolSchemaWarning, stacklevel=4)
        return
    # the registry `warnings.warn` would use, so that a warning shows once per definition
    registry = cast("dict[Any, Any]", module_globals).setdefault("__warningregistry__", {})
    warnings.warn_explicit(
        message,
        ToolSchemaWarning,
        code.co_filename,
        code.co_firstlineno,
        module=getattr(func, "__module__", None) or "agentry",
        registry=registry,
    )
