"""`python -m benchmarks`: every benchmark, one line each."""

from benchmarks import core, observability

core.main()
observability.main()
