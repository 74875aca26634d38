"""agentry's version, on the ground floor so that any package can name it."""

__version__ = "0.1.0"
