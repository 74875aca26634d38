"""`python -m benchmarks`: every benchmark, one line each."""

from benchmarks import core, durable, local_model, observability, workflows

core.main()
workflows.main()
durable.main()
observability.main()
local_model.main()
