"""A long-running Python runtime for tail and level tests: records a
"tick" op every few milliseconds at whatever level it is given (none by
default: level off), until its stdin closes. With the argument "hold" it
also keeps one op ("held") open the whole time. Prints "ready PID" once
its segment exists."""

import os
import sys
import threading
import time

import optrace

stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()

held = optrace.begin("held", tag="held_tag") if sys.argv[1:] == ["hold"] else None
optrace.mark("started")  # creates the segment at any level
print(f"ready {os.getpid()}", flush=True)
while not stop.is_set():
    with optrace.op("tick", tag="tick_tag"):
        time.sleep(0.002)
    time.sleep(0.003)
if held is not None:
    optrace.end(held)
