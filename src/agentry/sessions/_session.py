"""`AgentSession` (conversation state that outlives a run) and `SessionContext` (one run)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

from typing_extensions import Required, TypedDict

from agentry.errors import SerializationError, SessionError
from agentry.sessions._providers import InMemoryHistoryProvider, in_memory_history
from agentry.types import (
    AgentResponse,
    ChatOptions,
    JsonValue,
    Message,
    SerializationMixin,
    check_fields,
    stored_fields,
)

__all__ = ["AgentSession", "SessionContext", "register_state_type"]

SESSION_FORMAT_VERSION = 1
_TYPE_KEY = "__agentry_type__"
_StateT = TypeVar("_StateT", bound=type)


@stored_fields
class _StoredSession(TypedDict, total=False):
    version: int
    session_id: Required[str]
    service_session_id: str | None
    state: dict[str, Any] | None


class _StateType:
    __slots__ = ("cls", "decode", "encode")

    def __init__(
        self, cls: type, encode: Callable[[Any], JsonValue], decode: Callable[[Any], object]
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
        encode: Callable[[Any], JsonValue] = lambda value: value.model_dump(mode="json")  # noqa: E731
        decode = cast(Callable[[Any], object], cls.model_validate)  # type: ignore[attr-defined]
    elif hasattr(cls, "to_dict") and hasattr(cls, "from_dict"):
        encode = lambda value: value.to_dict()  # noqa: E731
        decode = cast(Callable[[Any], object], cls.from_dict)  # type: ignore[attr-defined]
    else:
        raise TypeError(f"{cls.__name__} needs to_dict()/from_dict() or to be a pydantic model")
    _STATE_TYPES[key] = _StateType(cls, encode, decode)
    return cls


def _encode(value: object, path: str) -> JsonValue:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Mapping):
        return {
            str(k): _encode(v, f"{path}.{k}")
            for k, v in cast("Mapping[object, object]", value).items()
        }
    if isinstance(value, (list, tuple)):
        return [_encode(v, f"{path}[{i}]") for i, v in enumerate(cast("Sequence[object]", value))]
    for key, state_type in _STATE_TYPES.items():
        if type(value) is state_type.cls:
            return {_TYPE_KEY: key, "value": state_type.encode(value)}
    raise SerializationError(
        f"session state at {path} holds a {type(value).__name__}, which is not JSON; "
        "register its type with register_state_type() or store plain JSON values"
    )


def _decode(value: object, path: str) -> object:
    if isinstance(value, list):
        items = cast("list[object]", value)
        return [_decode(v, f"{path}[{i}]") for i, v in enumerate(items)]
    if not isinstance(value, dict):
        return value
    data = cast("dict[str, object]", value)
    if _TYPE_KEY not in data:
        return {k: _decode(v, f"{path}.{k}") for k, v in data.items()}
    marker = data[_TYPE_KEY]
    state_type = _STATE_TYPES.get(marker) if isinstance(marker, str) else None
    if state_type is None:
        raise SessionError(
            f"session state at {path} holds an unregistered type {marker!r}; "
            "register it with register_state_type() before restoring"
        )
    if "value" not in data:
        raise SessionError(f"session state at {path}: the {marker} stored there has no 'value'")
    try:
        return state_type.decode(data["value"])
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise SessionError(
            f"session state at {path}: the {marker} stored there cannot be restored: {error}"
        ) from error


class AgentSession(SerializationMixin):
    """The state of one conversation: its id, a service-side id, and providers' state.

    Example:
        >>> session = AgentSession()
        >>> restored = AgentSession.from_dict(session.to_dict())
        >>> restored.session_id == session.session_id
        True
    """

    serialization_error = SessionError
    serialization_kind = "session"

    __slots__ = ("_session_id", "service_session_id", "state")

    def __init__(
        self,
        *,
        session_id: str | None = None,
        service_session_id: str | None = None,
        state: dict[str, Any] | None = None,
    ) -> None:
        self._session_id = session_id or None
        self.service_session_id = service_session_id
        self.state: dict[str, Any] = state if state is not None else {}

    @property
    def session_id(self) -> str:
        """The session's id: the one it was given, or a random one drawn when first read
        (a run without a session of its own never pays for one)."""
        if self._session_id is None:
            self._session_id = uuid.uuid4().hex
        return self._session_id

    @session_id.setter
    def session_id(self, value: str) -> None:
        self._session_id = value

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
    def from_dict(cls, data: Mapping[str, object]) -> AgentSession:
        """Restore a session from :meth:`to_dict` output.

        Raises:
            SessionError: The dict comes from a newer agentry, or is not a session.
        """
        if not isinstance(data, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise SessionError("a session must be restored from a dict made by to_dict()")
        version = data.get("version", SESSION_FORMAT_VERSION)
        if isinstance(version, int) and version > SESSION_FORMAT_VERSION:
            raise SessionError(
                f"this session was saved in format version {version!r}, newer than this "
                f"agentry understands (version {SESSION_FORMAT_VERSION}); upgrade agentry "
                "to restore it"
            )
        fields = check_fields(_StoredSession, data, kind="session", error=SessionError)
        session_id: str = fields["session_id"]
        if not session_id:
            raise SessionError("a session dict needs a non-empty 'session_id'")
        try:
            state = cast("dict[str, object]", _decode(fields.get("state") or {}, "state"))
        except RecursionError:
            raise SessionError("the session state is nested too deeply to restore") from None
        history_slot = InMemoryHistoryProvider.DEFAULT_SOURCE_ID
        if history_slot in state:
            in_memory_history(state[history_slot], history_slot)
        return cls(
            session_id=session_id,
            service_session_id=fields.get("service_session_id"),
            state=state,
        )

    def __repr__(self) -> str:
        return f"AgentSession(session_id={self.session_id!r})"


class SessionContext:
    """What context providers see and shape during one run.

    Providers add instructions, messages and tools under their `source_id` in
    `before_run`, and read `response` in `after_run`. Given a `session` in place of a
    `session_id`, its id is read when `session_id` is first asked for.
    """

    __slots__ = (
        "_session",
        "_session_id",
        "context_messages",
        "input_messages",
        "instructions",
        "metadata",
        "options",
        "response",
        "service_session_id",
        "tools",
    )

    def __init__(
        self,
        *,
        session_id: str | None = None,
        input_messages: list[Message],
        service_session_id: str | None = None,
        options: ChatOptions | None = None,
        session: AgentSession | None = None,
    ) -> None:
        self._session_id = session_id
        self._session = session
        self.service_session_id = service_session_id
        self.input_messages = input_messages
        self.context_messages: dict[str, list[Message]] = {}
        self.instructions: list[str] = []
        self.tools: list[Any] = []
        self.options: ChatOptions = options if options is not None else ChatOptions()
        self.response: AgentResponse | None = None
        self.metadata: dict[str, Any] = {}

    @property
    def session_id(self) -> str | None:
        """The id of the run's session."""
        if self._session_id is None and self._session is not None:
            self._session_id = self._session.session_id
        return self._session_id

    @session_id.setter
    def session_id(self, value: str | None) -> None:
        self._session_id = value

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

    def extend_tools(self, source_id: str, tools: Sequence[object]) -> None:
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
