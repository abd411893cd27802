"""A Python producer that keeps the trace around a moment: OPS ops, then
optrace.keep("oom") and optrace.keep() (the default reason), then OPS
more ops. Prints a JSON report (its pid and the errors that bad keep()
arguments raised) for producer_test.py. Arguments: OPS.
"""

import json
import os
import sys

import optrace

ops = int(sys.argv[1])
assert optrace.enabled() and optrace.get_level() == "trace"


def run_ops():
    for i in range(ops):
        with optrace.op("work", tag=f"part_{i % 2}"):
            pass


run_ops()
assert optrace.keep("oom") is None
optrace.keep()
errors = {}
for call, args, kwargs in (("int", (7,), {}), ("two", ("a", "b"), {}), ("kw", (), {"why": "x"})):
    try:
        optrace.keep(*args, **kwargs)
    except Exception as e:  # noqa: BLE001  (the report names the type)
        errors[call] = f"{type(e).__name__}: {e}"
run_ops()
print(json.dumps({"pid": os.getpid(), "errors": errors}))
