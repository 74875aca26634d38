"""`python -m benchmarks`: every benchmark, one line each."""

from benchmarks import core, observability, workflows

core.main()
workflows.main()
observability.main()
