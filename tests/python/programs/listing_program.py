"""A Python runtime whose op sites get source listings: one op at the
`# site:work` line, one at a line of a listing it registers (its "IR").
Prints a JSON report (its pid, the two op ids) for listing_test.py, which
runs a copy of this file and rewrites it afterwards.
"""

import json
import os

import optrace

IR = "func @model() {\n  %0 = matmul %x, %w\n  %1 = gelu %0\n  return %1\n}"

assert optrace.register_listing("model.after-fusion.mlir", IR) is True
for bad in ((1, "x"), ("name", b"bytes")):
    try:
        optrace.register_listing(*bad)
    except TypeError:
        pass
    else:
        raise AssertionError(f"register_listing{bad!r} did not raise")
try:
    optrace.register_listing("", "x")
except ValueError:
    pass
else:
    raise AssertionError("an empty name did not raise")

with optrace.op("work", tag="work_1") as work:  # site:work
    pass
fused = optrace.begin("fused")
optrace.end(fused)
print(json.dumps({"pid": os.getpid(), "work": work.id, "fused": fused.id}))
