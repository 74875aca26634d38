"""`AgentSession` (conversation state that outlives a run) and `SessionContext` (one run)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

from agentry.errors import SerializationError, SessionError
from agentry.types import AgentResponse, ChatOptions, Message

__all__ = ["AgentSession", "SessionContext", "register_state_type"]

SESSION_FORMAT_VERSION = 1
_TYPE_KEY = "__agentry_type__"
_StateT = TypeVar("_StateT", bound=type)


class _StateType:
    __slots__ = ("cls", "decode", "encode")

    def __init__(
        self, cls: type, encode: Callable[[Any], Any], decode: Callable[[Any], Any]
    ) -> None:
        self.cls = cls
        self.encode = encode
        self.decode = decode


_STATE_TYPES: dict[str, _StateType] = {
    "message": _StateType(Message, lambda m: m.to_dict(), Message.from_dict),
}


def register_state_type(cls: _StateT, *, name: str | None = None) -> _StateT:
    """Allow instances of `cls` in session state (and so in `to_dict`/`from_dict`).

    `cls` needs `to_dict()`/`from_dict()` or is a pydantic model. Usable as a decorator.
    Only registered types are ever rebuilt from stored state.
    """
    key = name or f"{cls.__module__}.{cls.__qualname__}"
    if hasattr(cls, "model_validate"):
        encode: Callable[[Any], Any] = lambda value: value.model_dump(mode="json")  # noqa: E731
        decode = cast(Callable[[Any], Any], cls.model_validate)  # type: ignore[attr-defined]
    elif hasattr(cls, "to_dict") and hasattr(cls, "from_dict"):
        encode = lambda value: value.to_dict()  # noqa: E731
        decode = cast(Callable[[Any], Any], cls.from_dict)  # type: ignore[attr-defined]
    else:
        raise TypeError(f"{cls.__name__} needs to_dict()/from_dict() or to be a pydantic model")
    _STATE_TYPES[key] = _StateType(cls, encode, decode)
    return cls


def _encode(value: Any, path: str) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Mapping):
        return {
            str(k): _encode(v, f"{path}.{k}") for k, v in cast("Mapping[Any, Any]", value).items()
        }
    if isinstance(value, (list, tuple)):
        return [_encode(v, f"{path}[{i}]") for i, v in enumerate(cast("Sequence[Any]", value))]
    for key, state_type in _STATE_TYPES.items():
        if type(value) is state_type.cls:
            return {_TYPE_KEY: key, "value": state_type.encode(value)}
    raise SerializationError(
        f"session state at {path} holds a {type(value).__name__}, which is not JSON; "
        "register its type with register_state_type() or store plain JSON values"
    )


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in cast("list[Any]", value)]
    if isinstance(value, dict):
        data = cast("dict[str, Any]", value)
        if _TYPE_KEY in data:
            state_type = _STATE_TYPES.get(data[_TYPE_KEY])
            if state_type is None:
                raise SerializationError(
                    f"session state holds an unregistered type {data[_TYPE_KEY]!r}; "
                    "register it with register_state_type() before restoring"
                )
            return state_type.decode(data["value"])
        return {k: _decode(v) for k, v in data.items()}
    return value


class AgentSession:
    """The state of one conversation: its id, a service-side id, and providers' state.

    Example:
        >>> session = AgentSession()
        >>> restored = AgentSession.from_dict(session.to_dict())
        >>> restored.session_id == session.session_id
        True
    """

    __slots__ = ("service_session_id", "session_id", "state")

    def __init__(
        self,
        *,
        session_id: str | None = None,
        service_session_id: str | None = None,
        state: dict[str, Any] | None = None,
    ) -> None:
        self.session_id = session_id or uuid.uuid4().hex
        self.service_session_id = service_session_id
        self.state: dict[str, Any] = state if state is not None else {}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the session.

        Raises:
            SerializationError: The state holds a value that is neither JSON nor registered.
        """
        return {
            "version": SESSION_FORMAT_VERSION,
            "session_id": self.session_id,
            "service_session_id": self.service_session_id,
            "state": _encode(self.state, "state"),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgentSession:
        """Restore a session from :meth:`to_dict` output.

        Raises:
            SessionError: The dict comes from a newer agentry, or is not a session.
        """
        if not isinstance(data, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise SessionError("a session must be restored from a dict made by to_dict()")
        version = data.get("version", SESSION_FORMAT_VERSION)
        if not isinstance(version, int) or version > SESSION_FORMAT_VERSION:
            raise SessionError(
                f"this session was saved in format version {version!r}, newer than this "
                f"agentry understands (version {SESSION_FORMAT_VERSION}); upgrade agentry "
                "to restore it"
            )
        session_id = data.get("session_id")
        if not isinstance(session_id, str) or not session_id:
            raise SessionError("a session dict needs a non-empty 'session_id'")
        state: Any = data.get("state") or {}
        if not isinstance(state, dict):
            raise SessionError("a session's 'state' must be an object")
        try:
            decoded = _decode(state)
        except SerializationError as error:
            raise SessionError(str(error)) from None
        return cls(
            session_id=session_id,
            service_session_id=data.get("service_session_id"),
            state=cast("dict[str, Any]", decoded),
        )

    def __repr__(self) -> str:
        return f"AgentSession(session_id={self.session_id!r})"


class SessionContext:
    """What context providers see and shape during one run.

    Providers add instructions, messages and tools under their `source_id` in
    `before_run`, and read `response` in `after_run`.
    """

    __slots__ = (
        "context_messages",
        "input_messages",
        "instructions",
        "metadata",
        "options",
        "response",
        "service_session_id",
        "session_id",
        "tools",
    )

    def __init__(
        self,
        *,
        session_id: str | None,
        input_messages: list[Message],
        service_session_id: str | None = None,
        options: ChatOptions | None = None,
    ) -> None:
        self.session_id = session_id
        self.service_session_id = service_session_id
        self.input_messages = input_messages
        self.context_messages: dict[str, list[Message]] = {}
        self.instructions: list[str] = []
        self.tools: list[Any] = []
        self.options: ChatOptions = options if options is not None else ChatOptions()
        self.response: AgentResponse | None = None
        self.metadata: dict[str, Any] = {}

    def extend_messages(self, source_id: str, messages: Sequence[Message]) -> None:
        """Add messages (history, retrieved documents...) ahead of the input messages."""
        self.context_messages.setdefault(source_id, []).extend(messages)

    def extend_instructions(self, source_id: str, instructions: str | Sequence[str]) -> None:
        """Add instructions for this run."""
        del source_id  # kept for attribution symmetry with the other extend_* methods
        if isinstance(instructions, str):
            self.instructions.append(instructions)
        else:
            self.instructions.extend(instructions)

    def extend_tools(self, source_id: str, tools: Sequence[Any]) -> None:
        """Offer more tools for this run."""
        del source_id
        self.tools.extend(tools)

    def get_messages(
        self, *, sources: Sequence[str] | None = None, include_input: bool = False
    ) -> list[Message]:
        """Context messages in provider order (optionally only some sources), then input."""
        messages = [
            m
            for source, items in self.context_messages.items()
            if sources is None or source in sources
            for m in items
        ]
        if include_input:
            messages.extend(self.input_messages)
        return messages
