"""`python -m benchmarks`: every benchmark, one line each."""

from benchmarks import (
    a2a_load,
    core,
    durable,
    durable_throughput,
    local_model,
    observability,
    openai_server,
    workflows,
)

core.main()
workflows.main()
durable.main()
durable_throughput.main()
observability.main()
a2a_load.main([])
openai_server.main()
local_model.main()
