"""Redaction: secrets kept out of logs (and anything else that passes text through)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence

__all__ = ["DEFAULT_PATTERNS", "RedactingFilter", "Redactor"]

MASK = "[REDACTED]"

DEFAULT_PATTERNS: tuple[str, ...] = (
    r"sk-[A-Za-z0-9_-]{16,}",  # OpenAI-style API keys
    r"(?i:\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}",  # bearer tokens
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key ids
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    r"(?i:\b(?:password|passwd|pwd|secret|api[_-]?key|token)\s*[=:])\s*[^\s,;&'\"]+",
    r"\bgh[pousr]_[A-Za-z0-9]{20,}\b",  # GitHub tokens
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",  # Slack tokens
    r"\bAIza[0-9A-Za-z_-]{35}",  # Google API keys
    r"\b[rs]k_live_[A-Za-z0-9]{16,}",  # Stripe live keys
    r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",  # JSON web tokens
    r"(?<=://)[^\s/:@]+:[^\s/@]+(?=@)",  # user:password in a URL
)
"""Common secrets: API keys (OpenAI, AWS, GitHub, Slack, Google, Stripe), bearer tokens,
JSON web tokens, private keys, password pairs, and credentials inside URLs."""


class Redactor:
    """Replaces secrets in text with `[REDACTED]`.

    Args:
        patterns: Regular expressions of secrets (default: `DEFAULT_PATTERNS`).
        secrets: Exact secret values to hide wherever they appear.
        extra_patterns: More expressions, on top of `patterns`.

    Example:
        >>> Redactor(secrets=["hunter2"]).redact("login with hunter2, key sk-abcdefghijklmnopqrstu")
        'login with [REDACTED], key [REDACTED]'
    """

    def __init__(
        self,
        patterns: Sequence[str] = DEFAULT_PATTERNS,
        *,
        secrets: Iterable[str] = (),
        extra_patterns: Sequence[str] = (),
    ) -> None:
        values = sorted({s for s in secrets if s}, key=len, reverse=True)
        sources = [*patterns, *extra_patterns, *(re.escape(v) for v in values)]
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
        return self._pattern.sub(MASK, text)


class RedactingFilter(logging.Filter):
    """A logging filter that redacts secrets from records' messages and arguments.

    Example:
        >>> import logging
        >>> logging.getLogger("agentry").addFilter(RedactingFilter())
    """

    def __init__(self, redactor: Redactor | None = None) -> None:
        super().__init__()
        self.redactor = redactor or Redactor()

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the record in place; always let it through."""
        record.msg = self.redactor.redact(record.getMessage())
        record.args = None
        return True
