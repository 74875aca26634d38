"""`python -m benchmarks`: every benchmark, one line each."""

from benchmarks import core, workflows

core.main()
workflows.main()
