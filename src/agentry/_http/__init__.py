"""What agentry's HTTP servers share: bearer keys, request bodies read within a limit."""

from agentry._http._bodies import read_json
from agentry._http._hosting import add_host_arguments, keys_from_environment, warn_when_open
from agentry._http._keys import BearerKeys
from agentry._http._problem import HTTPProblem

__all__ = [
    "BearerKeys",
    "HTTPProblem",
    "add_host_arguments",
    "keys_from_environment",
    "read_json",
    "warn_when_open",
]
