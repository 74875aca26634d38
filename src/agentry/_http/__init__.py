"""What agentry's HTTP servers share: bearer keys, request bodies read within a limit."""

from agentry._http._bodies import read_json
from agentry._http._keys import BearerKeys
from agentry._http._problem import HTTPProblem

__all__ = ["BearerKeys", "HTTPProblem", "read_json"]
