"""optrace for Python: record ops into optraced, and query it.

Producer API (a C extension over liboptrace; never blocks, never raises
because of tracing, costs a level check when tracing is off)::

    import optrace
    with optrace.op("matmul", tag="matmul_128x256x512_f32", target="gpu", device=0):
        ...
    handle = optrace.begin("copy")        # ends on any thread
    optrace.end(handle, device_ns=1200)
    for batch in loader:
        with optrace.step():              # one step per iteration; ops nest under it
            ...
    for batch in loader:
        optrace.step()                    # or: end the last step, begin this one
        ...
    optrace.step_finish()                 # end the loop's last step
    optrace.keep("oom")                   # keep the trace around this moment
    optrace.register_listing("mlp.mlir", ir)  # a listing of the runtime's own
    optrace.mark("step done")
    optrace.counter("pool_bytes", 1 << 20)
    optrace.set_level("trace")            # or OPTRACE_LEVEL=trace
    optrace.fused_tag("matmul_16x1024x256_f32", "elementwise_gelu_16384_f32")

Query client (gRPC, needs python3-grpcio and python3-protobuf; imported on
first use)::

    client = optrace.Client()             # the default socket, as the CLI's
    for row in client.stats(session_id).rows:
        print(row.name, row.count, row.p50_ns)

See docs/python.md.
"""

from optrace._producer import (Op, Step, begin, counter, enabled, end, fused_tag, get_level, keep,
                               mark, op, register_listing, set_level, step, step_finish)
from optrace.errors import *  # noqa: F401,F403  (Error and one subclass per gRPC code)
from optrace.errors import __all__ as _error_names
from optrace.trimmed import TrimmedSessionWarning

__all__ = [
    "Op", "op", "begin", "end", "Step", "step", "step_finish", "keep", "mark", "counter",
    "fused_tag", "register_listing", "set_level", "get_level", "enabled",
    "Client", "LEVELS", "TrimmedSessionWarning",
] + list(_error_names)

# Levels, least to most verbose. Ops are recorded at "trace".
LEVELS = ("off", "error", "warning", "info", "debug", "trace")


def __getattr__(name):
    # The client needs grpc and protobuf; producers that only record ops
    # do not pay for importing them.
    if name == "Client":
        from optrace.client import Client
        return Client
    raise AttributeError(f"module 'optrace' has no attribute {name!r}")
