"""A Python runtime that records known ops, then prints a JSON report of
what it recorded (ids, names, tags, placement, parents, the site of each
op, threads) for producer_test.py to compare with what optraced stored.
The `# site:NAME` comments mark the lines the ops must be attributed to.
Arguments: THREADS OPS_PER_THREAD LOOP_OPS.
"""

import json
import os
import sys
import threading

import optrace

threads, ops_per_thread, loop_ops = (int(a) for a in sys.argv[1:4])
main_tid = threading.get_native_id()
ops = []
lock = threading.Lock()


def record(op, site, parent=0, launch_thread=None, complete_thread=None, device_ns=None):
    with lock:
        ops.append({"id": op.id, "name": op.name, "tag": op.tag or "", "target": op.target,
                    "device": op.device, "stream": op.stream, "site": site, "parent": parent,
                    "launch_thread": launch_thread or threading.get_native_id(),
                    "complete_thread": complete_thread or threading.get_native_id(),
                    "device_ns": device_ns})


assert optrace.enabled() and optrace.get_level() == "trace"

with optrace.op("outer", tag="outer_tag") as outer:  # site:outer
    with optrace.op("inner", target="gpu", device=1, stream=7) as inner:  # site:inner
        pass
    handle = optrace.begin("async_copy", tag="copy_1MiB", target="gpu", device=1)  # site:begin
record(inner, "inner", parent=outer.id)
record(outer, "outer")

try:
    with optrace.op("raises") as raising:  # site:raises
        raise ValueError("inside the op")
except ValueError:
    pass
record(raising, "raises")
with optrace.op("after_raise") as after:  # site:after
    pass
record(after, "after")  # the op that raised is no longer anyone's parent

# The async op ends on another thread, with a device-measured duration.
ended_on = []


def complete():
    optrace.end(handle, device_ns=4242)
    ended_on.append(threading.get_native_id())


finisher = threading.Thread(target=complete)
finisher.start()
finisher.join()
record(handle, "begin", parent=outer.id, launch_thread=main_tid, complete_thread=ended_on[0],
       device_ns=4242)


def work(index):
    for _ in range(ops_per_thread):
        with optrace.op("thread_op", tag=f"thread_{index}") as o:  # site:thread
            pass
        record(o, "thread")


workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
for w in workers:
    w.start()
for w in workers:
    w.join()

for i in range(loop_ops):
    with optrace.op("loop", tag=f"step_{i % 3}") as o:  # site:loop
        pass
    record(o, "loop")

optrace.mark("loop done", tag="marks")
optrace.counter("ops_recorded", len(ops))
print(json.dumps({"pid": os.getpid(), "ops": ops, "instants": 2}))
