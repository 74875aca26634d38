"""`python -m benchmarks`: every benchmark, one line each."""

from benchmarks import core, local_model, observability, workflows

core.main()
workflows.main()
observability.main()
local_model.main()
