"""agentry: a framework for LLM agents and multi-agent workflows."""

__version__ = "0.1.0"
__all__ = ["__version__"]
