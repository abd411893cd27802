"""A Python training loop that records steps both ways: STEPS steps with
`with optrace.step():`, then STEPS more with a bare optrace.step() at the
top of each iteration and optrace.step_finish() after the loop, each step
running a few ops (one nested). Prints a JSON report of the step ids and
of each op's id and expected parent for producer_test.py to compare with
what optraced stored. The `# site:NAME` comments mark the lines the steps
must be attributed to. Arguments: STEPS.
"""

import json
import os
import sys

import optrace

steps_per_loop = int(sys.argv[1])
steps = []  # {"id", "site"}
ops = []    # {"id", "name", "parent"}

assert optrace.enabled() and optrace.get_level() == "trace"


def body(step):
    with optrace.op("load_batch") as load:
        pass
    ops.append({"id": load.id, "name": "load_batch", "parent": step.id})
    with optrace.op("forward") as forward:
        with optrace.op("matmul") as matmul:
            pass
    ops.append({"id": forward.id, "name": "forward", "parent": step.id})
    ops.append({"id": matmul.id, "name": "matmul", "parent": forward.id})


for _ in range(steps_per_loop):
    with optrace.step() as step:  # site:with_step
        assert step.running
        body(step)
    assert not step.running
    steps.append({"id": step.id, "site": "with_step"})

for _ in range(steps_per_loop):
    step = optrace.step()  # site:bare_step
    body(step)
    steps.append({"id": step.id, "site": "bare_step"})
optrace.step_finish()
assert not step.running

with optrace.op("after_loop") as after:
    pass
ops.append({"id": after.id, "name": "after_loop", "parent": 0})
print(json.dumps({"pid": os.getpid(), "steps": steps, "ops": ops}))
