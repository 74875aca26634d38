"""Security primitives: tool policies, limits on tool results, redaction of secrets (from
`agentry.observability`), and the path containment of the file stores (from `agentry.files`).

Example:
    >>> from agentry.security import ResultSizeLimit, ToolPolicy
    >>> middleware = [ToolPolicy(deny=["*delete*"]), ResultSizeLimit(max_chars=10_000)]
"""

from agentry.files import PathEscapeError, normalize_relative_path, open_directory
from agentry.observability import DEFAULT_PATTERNS, RedactingFilter, Redactor
from agentry.security._limits import ResultSizeLimit
from agentry.security._policy import ToolPolicy

__all__ = [
    "DEFAULT_PATTERNS",
    "PathEscapeError",
    "RedactingFilter",
    "Redactor",
    "ResultSizeLimit",
    "ToolPolicy",
    "normalize_relative_path",
    "open_directory",
]
