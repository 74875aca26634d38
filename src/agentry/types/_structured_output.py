"""Structured output: a model's answer validated against a response format.

A response format is a pydantic model class (the answer becomes an instance of it) or a
JSON schema dict (the answer becomes the JSON value, checked with `jsonschema`). pydantic
and jsonschema are imported on first use, so importing agentry stays light.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Protocol, cast

from agentry.errors import OutputValidationError, StructuredOutputError

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = ["parse_structured_output"]


class _SchemaProblem(Protocol):
    """What `jsonschema` reports for one part of a value that breaks the schema."""

    message: str
    absolute_path: Iterable[object]


class _SchemaValidator(Protocol):
    def iter_errors(self, instance: object) -> Iterable[_SchemaProblem]: ...


def parse_structured_output(text: str, response_format: object) -> object:
    """Parse `text` with a pydantic model class or, for a JSON schema dict, as JSON that
    the schema accepts.

    Raises:
        OutputValidationError: `text` does not validate; its `errors` say why.
        StructuredOutputError: `response_format` is neither a model class nor a dict.
    """
    if isinstance(response_format, Mapping):
        return _parse_with_schema(text, cast("Mapping[str, object]", response_format))
    validate_json = getattr(response_format, "model_validate_json", None)
    if not callable(validate_json):
        raise StructuredOutputError(
            f"response_format must be a pydantic model class or a JSON schema dict, "
            f"not {response_format!r}"
        )
    from pydantic import ValidationError

    name = getattr(response_format, "__name__", "the response format")
    try:
        return cast("Callable[[str], object]", validate_json)(text)
    except ValidationError as error:
        problems = _pydantic_problems(error)
        raise _invalid(text, f"does not validate as {name}", problems) from None


def _parse_with_schema(text: str, schema: Mapping[str, object]) -> object:
    try:
        value: object = json.loads(text)
    except json.JSONDecodeError as error:
        raise _invalid(text, "is not JSON", [f"not JSON: {error}"]) from None
    from jsonschema import validators

    validator_class = validators.validator_for(schema)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    validator = cast("_SchemaValidator", validator_class(schema))
    problems = [_schema_problem(problem) for problem in validator.iter_errors(value)]
    if problems:
        raise _invalid(text, "does not match the JSON schema", problems)
    return value


def _schema_problem(problem: _SchemaProblem) -> str:
    where = ".".join(str(part) for part in problem.absolute_path)
    return f"{where}: {problem.message}" if where else problem.message


def _pydantic_problems(error: ValidationError) -> list[str]:
    problems: list[str] = []
    for detail in error.errors(include_url=False):
        where = ".".join(str(part) for part in detail["loc"])
        problems.append(f"{where}: {detail['msg']}" if where else detail["msg"])
    return problems


def _invalid(text: str, what: str, problems: list[str]) -> OutputValidationError:
    return OutputValidationError(
        f"the model's answer {what}: {'; '.join(problems)}", text=text, errors=problems
    )
