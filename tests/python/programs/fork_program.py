"""Ops before a fork(), in the child, and in the parent after it. The
child prints its JSON report and exits normally; the parent waits for it
and prints its own. Arguments: BEFORE CHILD AFTER (op counts)."""

import json
import os
import sys
import threading

import optrace

before, in_child, after = (int(a) for a in sys.argv[1:4])


def run(count, name):
    ids = []
    for _ in range(count):
        with optrace.op(name) as outer:
            with optrace.op(name + "_inner") as inner:
                pass
        ids.append([outer.id, inner.id])
    return ids


report = {"pid": os.getpid(), "before": run(before, "parent_before")}
child = os.fork()
if child == 0:
    ids = run(in_child, "child_op")
    # A thread of the child traces too.
    worker = threading.Thread(target=lambda: ids.extend(run(in_child, "child_thread_op")))
    worker.start()
    worker.join()
    print(json.dumps({"pid": os.getpid(), "child": ids}), flush=True)
    sys.exit(0)
_, status = os.waitpid(child, 0)
report["child_pid"] = child
report["child_status"] = status
report["after"] = run(after, "parent_after")
print(json.dumps(report), flush=True)
