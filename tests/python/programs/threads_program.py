"""THREADS threads that each record OPS nested op pairs at once, released
together by a barrier. Prints a JSON report: per thread, its OS thread
id and its (outer, inner) op ids. Arguments: THREADS OPS."""

import json
import os
import sys
import threading

import optrace

threads, ops = int(sys.argv[1]), int(sys.argv[2])
barrier = threading.Barrier(threads)
results = {}


def work(index):
    ids = []
    barrier.wait()
    for _ in range(ops):
        with optrace.op("outer", tag=f"thread_{index}") as outer:
            with optrace.op("inner", tag=f"thread_{index}") as inner:
                pass
        ids.append([outer.id, inner.id])
    results[threading.get_native_id()] = ids


workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
for w in workers:
    w.start()
for w in workers:
    w.join()
print(json.dumps({"pid": os.getpid(), "threads": results}))
