"""Security primitives: tool policies, limits on tool results, redaction of secrets, and
the path containment of the file stores.

Example:
    >>> from agentry.security import ResultSizeLimit, ToolPolicy
    >>> middleware = [ToolPolicy(deny=["*delete*"]), ResultSizeLimit(max_chars=10_000)]
"""

from agentry.files import PathEscapeError, normalize_relative_path, open_directory
from agentry.security._limits import ResultSizeLimit
from agentry.security._policy import ToolPolicy
from agentry.security._redaction import DEFAULT_PATTERNS, RedactingFilter, Redactor

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
