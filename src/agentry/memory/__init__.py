"""Memories an agent keeps per session: `MemoryContextProvider`.

Example:
    >>> from agentry.memory import MemoryContextProvider
    >>> provider = MemoryContextProvider(max_memories=50)
"""

from agentry.memory._provider import MemoryContextProvider

__all__ = ["MemoryContextProvider"]
