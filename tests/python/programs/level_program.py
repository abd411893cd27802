"""Ops at level off (nothing recorded, ids 0), then set_level("trace")
and ops again. Prints a JSON report. Arguments: OPS_OFF OPS_TRACE."""

import json
import os
import sys
import time

import optrace

ops_off, ops_trace = int(sys.argv[1]), int(sys.argv[2])


def run(count, name):
    ids = []
    for _ in range(count):
        with optrace.op(name) as o:
            pass
        ids.append(o.id)
    return ids


report = {"pid": os.getpid()}
report["before"] = {"level": optrace.get_level(), "enabled": optrace.enabled(),
                    "ids": run(ops_off, "before_set_level")}
optrace.mark("not recorded")  # at level off: neither is recorded
optrace.counter("not recorded", 1)
optrace.set_level("trace")
# With a daemon attached, the live level follows within one drain cycle.
deadline = time.monotonic() + 20
while not optrace.enabled() and time.monotonic() < deadline:
    time.sleep(0.01)
report["after"] = {"level": optrace.get_level(), "enabled": optrace.enabled(),
                   "ids": run(ops_trace, "after_set_level")}
optrace.mark("recorded")
optrace.counter("recorded", 2)
report["instants"] = 2
print(json.dumps(report))
