"""`python -m benchmarks`: every benchmark, one line each."""

from benchmarks import core

core.main()
