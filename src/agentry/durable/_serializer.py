"""`JSONSerializer`: what DBOS writes to its database is JSON, never pickle.

agentry encodes every value it hands to DBOS (inputs, step records, outputs, answers)
with the workflow's checkpoint type registry first, so DBOS only ever sees plain JSON.
This serializer writes that JSON as is and refuses anything else. Errors, which DBOS
also stores, are written as plain records and read back as `DurableRunFailedError`.
"""

from __future__ import annotations

import json
from typing import Any, cast

from dbos._serialization import Serializer

from agentry.durable._errors import DurableRunFailedError
from agentry.workflows import ExecutorFailedException

__all__ = ["SERIALIZER_NAME", "JSONSerializer", "failure_of"]

SERIALIZER_NAME = "agentry_json"
_ERROR_KEY = "__agentry_error__"


class JSONSerializer(Serializer):
    """DBOS's serializer for agentry: strict JSON in, JSON out, errors as records."""

    def name(self) -> str:
        return SERIALIZER_NAME

    def serialize(self, data: object) -> str:
        if isinstance(data, BaseException):
            return json.dumps({_ERROR_KEY: _error_record(data)})
        try:
            return json.dumps(data, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise TypeError(
                f"only JSON goes into the durable database, and this value is not JSON "
                f"({error}); encode it with the workflow's type_registry first"
            ) from error

    def deserialize(self, serialized_data: str) -> Any:
        data: object = json.loads(serialized_data)
        record = _error_in(data)
        if record is not None:
            return DurableRunFailedError(
                str(record.get("message", "")),
                error_type=str(record.get("type", "Exception")),
                executor_id=record.get("executor_id"),
            )
        return data


def _error_in(data: object) -> dict[str, Any] | None:
    if isinstance(data, dict) and _ERROR_KEY in data:
        return cast("dict[str, Any]", cast("dict[str, Any]", data)[_ERROR_KEY])
    return None


def _error_record(error: BaseException) -> dict[str, Any]:
    if isinstance(error, DurableRunFailedError):
        return {
            "type": error.error_type,
            "message": str(error),
            "executor_id": error.executor_id,
        }
    executor_id = error.executor_id if isinstance(error, ExecutorFailedException) else None
    return {"type": type(error).__name__, "message": str(error), "executor_id": executor_id}


def failure_of(error: Exception) -> DurableRunFailedError:
    """The `DurableRunFailedError` a run that raised `error` reads back as."""
    if isinstance(error, DurableRunFailedError):
        return error
    record = _error_record(error)
    return DurableRunFailedError(
        record["message"], error_type=record["type"], executor_id=record["executor_id"]
    )
