"""Redaction: secrets kept out of logs (and anything else that passes text through)."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterable, Sequence

__all__ = ["DEFAULT_PATTERNS", "RedactingFilter", "Redactor"]

MASK = "[REDACTED]"

# A `name = value` pair whose name says it holds a secret. The name is kept (group `_key`)
# and only the value is masked, quotes and all, so that redacted JSON stays JSON. Values
# may be bare, quoted, or quoted inside a JSON string (`\"...\"`, as in JSON-encoded
# arguments). The look-behind makes matching start only at the beginning of a name.
_SECRET_PAIR = (
    r"(?i:(?P<_key>(?<![\w.-])[\w.-]*?"
    r"(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|private[_-]?key|token)"
    r"\\?[\"']?\s*[=:]\s*)"
    r"(?P<_value>\\\"(?:[^\"\\]|\\\\\\\"|\\[^\"])*\\\"|\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'"
    r"|[^\s,;&'\"}\]]+))"
)

DEFAULT_PATTERNS: tuple[str, ...] = (
    r"sk-[A-Za-z0-9_-]{16,}",  # OpenAI-style API keys
    r"(?i:\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}",  # bearer tokens
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key ids
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    _SECRET_PAIR,
    r"\bgh[pousr]_[A-Za-z0-9]{20,}\b",  # GitHub tokens
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",  # Slack tokens
    r"\bAIza[0-9A-Za-z_-]{35}",  # Google API keys
    r"\b[rs]k_live_[A-Za-z0-9]{16,}",  # Stripe live keys
    r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",  # JSON web tokens
    r"(?<=://)[^\s/:@]+:[^\s/@]+(?=@)",  # user:password in a URL
)
"""Common secrets: API keys (OpenAI, AWS, GitHub, Slack, Google, Stripe), bearer tokens,
JSON web tokens, private keys, `name=value` and JSON `"name": "value"` pairs whose name
says secret (`password`, `api_key`, `client_secret`, `access_token`...), and credentials
inside URLs."""


class Redactor:
    """Replaces secrets in text with `[REDACTED]`.

    Exact `secrets` are also found where they appear JSON-escaped (a quote, backslash or
    line break inside a JSON document), as in recorded prompts and tool arguments.

    Args:
        patterns: Regular expressions of secrets (default: `DEFAULT_PATTERNS`).
        secrets: Exact secret values to hide wherever they appear.
        extra_patterns: More expressions, on top of `patterns`.

    Example:
        >>> Redactor(secrets=["hunter2"]).redact("login with hunter2, key sk-abcdefghijklmnopqrstu")
        'login with [REDACTED], key [REDACTED]'
        >>> Redactor().redact('{"user": "ada", "api_key": "abc123"}')
        '{"user": "ada", "api_key": "[REDACTED]"}'
    """

    def __init__(
        self,
        patterns: Sequence[str] = DEFAULT_PATTERNS,
        *,
        secrets: Iterable[str] = (),
        extra_patterns: Sequence[str] = (),
    ) -> None:
        values = sorted({form for s in secrets if s for form in _written_forms(s)}, key=len)
        values.reverse()  # longest first, so that a secret is not masked only in part
        sources = list(dict.fromkeys([*patterns, *extra_patterns, *(re.escape(v) for v in values)]))
        try:
            self._pattern = re.compile("|".join(f"(?:{p})" for p in sources)) if sources else None
        except re.error as error:
            raise ValueError(
                f"a redaction pattern is not a valid regular expression: {error}"
            ) from None

    def redact(self, text: str) -> str:
        """`text` with every secret replaced by `[REDACTED]`."""
        if self._pattern is None:
            return text
        return self._pattern.sub(_mask, text)


def _mask(match: re.Match[str]) -> str:
    groups = match.groupdict()
    value = groups.get("_value")
    if value is None:
        return MASK
    quote = '\\"' if value.startswith('\\"') else value[0] if value[0] in "\"'" else ""
    return f"{groups['_key']}{quote}{MASK}{quote}"


def _written_forms(secret: str) -> set[str]:
    """`secret` as written in plain text, in JSON, and in JSON inside a JSON string."""
    forms = {secret}
    for ascii_only in (True, False):
        once = json.dumps(secret, ensure_ascii=ascii_only)[1:-1]
        forms |= {once, json.dumps(once, ensure_ascii=ascii_only)[1:-1]}
    return forms


class RedactingFilter(logging.Filter):
    """A logging filter that redacts secrets from log records: their message, arguments,
    traceback and stack text.

    Put it on the handlers that write agentry's records (a filter on a logger sees only
    the records of that very logger, not those of `agentry.tools` and the other loggers
    below it). A record's traceback is formatted here, redacted, and kept as text: later
    formatters print the text, never the live exception.

    Args:
        redactor: What to redact with: a `Redactor` (default: `Redactor()`), or any
            function from text to text.

    Example:
        >>> import io, logging
        >>> from agentry.observability import configure_logging
        >>> handler = configure_logging("WARNING", stream=io.StringIO())
        >>> handler.addFilter(RedactingFilter())
    """

    def __init__(self, redactor: Redactor | Callable[[str], str] | None = None) -> None:
        super().__init__()
        self.redactor = redactor or Redactor()
        self._redact: Callable[[str], str] = (
            self.redactor.redact if isinstance(self.redactor, Redactor) else self.redactor
        )

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the record in place; always let it through."""
        record.msg = self._redact(record.getMessage())
        record.args = None
        if record.exc_info and record.exc_info[0] is not None:
            if not record.exc_text:
                record.exc_text = _FORMATTER.formatException(record.exc_info)
            record.exc_info = None
        if record.exc_text:
            record.exc_text = self._redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self._redact(record.stack_info)
        return True


_FORMATTER = logging.Formatter()
