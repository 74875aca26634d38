"""`python -m benchmarks`: every benchmark, one line each."""

from benchmarks import (
    a2a_load,
    core,
    durable,
    durable_throughput,
    local_model,
    observability,
    workflows,
)

core.main()
workflows.main()
durable.main()
durable_throughput.main()
observability.main()
a2a_load.main([])
local_model.main()
