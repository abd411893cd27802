"""A Python runtime for metrics_test.py: records OPS ops named "metrics_op"
lasting from about 2 us to about 2 ms (a spread over many histogram
buckets), then one op of each of DISTINCT other names (PREFIX_0, ...;
PREFIX is "name" unless given), and prints a JSON report (its pid).
Arguments: OPS DISTINCT [PREFIX].
"""

import json
import os
import sys
import time

import optrace

ops, distinct = (int(a) for a in sys.argv[1:3])
prefix = sys.argv[3] if len(sys.argv) > 3 else "name"
assert optrace.enabled() and optrace.get_level() == "trace"

for i in range(ops):
    # Durations 0, 10, 20, ... 1990 us: a busy wait, so that they are real.
    wait_ns = (i % 200) * 10_000
    with optrace.op("metrics_op"):
        end = time.perf_counter_ns() + wait_ns
        while time.perf_counter_ns() < end:
            pass
for i in range(distinct):
    with optrace.op(f"{prefix}_{i}"):
        pass
print(json.dumps({"pid": os.getpid()}))
