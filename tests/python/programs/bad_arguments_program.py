"""Calls of the producer API with bad arguments: each must raise
TypeError, ValueError or RuntimeError and record nothing. Prints a JSON
report: the error of each call, the calls that did not raise, and how
many spans the good ops around them recorded."""

import json
import os

import optrace

calls = {
    "op()": lambda: optrace.op(),
    "op(1)": lambda: optrace.op(1),
    "op('')": lambda: optrace.op(""),
    "op(tag=3)": lambda: optrace.op("x", tag=3),
    "op(target='tpu')": lambda: optrace.op("x", target="tpu"),
    "op(device=-1)": lambda: optrace.op("x", device=-1),
    "op(device=65536)": lambda: optrace.op("x", device=65536),
    "op(stream=2**32)": lambda: optrace.op("x", stream=2**32),
    "op(device='0')": lambda: optrace.op("x", device="0"),
    "op(bogus=1)": lambda: optrace.op("x", bogus=1),
    "op(name twice)": lambda: optrace.op("x", name="y"),
    "op(6 positional)": lambda: optrace.op("x", None, "cpu", 0, 0, 0),
    "end(42)": lambda: optrace.end(42),
    "end(device_ns=-5)": lambda: optrace.end(optrace.begin("y"), device_ns=-5),
    "set_level('loud')": lambda: optrace.set_level("loud"),
    "set_level(5)": lambda: optrace.set_level(5),
    "mark(level='off')": lambda: optrace.mark("m", level="off"),
    "counter('c', 'x')": lambda: optrace.counter("c", "x"),
    "counter('c', 2**64)": lambda: optrace.counter("c", 2**64),
    "Op()": lambda: optrace.Op(),
}
errors, unraised = {}, []
for text, call in calls.items():
    try:
        call()
        unraised.append(text)
    except (TypeError, ValueError, RuntimeError) as e:
        errors[text] = f"{type(e).__name__}: {e}"

spans = 0
# An op entered twice at once, and end() of a `with` op.
o = optrace.op("twice")
with o:
    try:
        with o:
            unraised.append("enter twice")
    except RuntimeError as e:
        errors["enter twice"] = f"RuntimeError: {e}"
    try:
        optrace.end(o)
        unraised.append("end(with op)")
    except ValueError as e:
        errors["end(with op)"] = f"ValueError: {e}"
spans += 1
# end() twice records one COMPLETE.
h = optrace.begin("ended_twice")
optrace.end(h)
optrace.end(h)
spans += 1
spans += 1  # the begin("y") of end(device_ns=-5): launched, never ended (incomplete)
print(json.dumps({"pid": os.getpid(), "errors": errors, "unraised": unraised, "spans": spans}))
