"""`python -m benchmarks`: every benchmark, one line each."""

from benchmarks import core, local_model, workflows

core.main()
workflows.main()
local_model.main()
