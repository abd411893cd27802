"""Tails the daemon at argv[1] (ops named argv[2] only: none arrive) until
Ctrl-C. Prints "waiting" once the main thread waits inside the tail for
its next item, and "ended cleanly" when the iteration has ended: a
KeyboardInterrupt while waiting must end it, not escape from it."""

import sys
import threading

import optrace

client = optrace.Client(socket=sys.argv[1])
tail = client.tail(level="trace", name=sys.argv[2])


def waiting_in_tail():
    frame = sys._current_frames().get(threading.main_thread().ident)
    files = set()
    while frame is not None:
        files.add(frame.f_code.co_filename)
        frame = frame.f_back
    return any(f.endswith("optrace/tail.py") for f in files) and any("grpc" in f for f in files)


def announce():
    for _ in range(6000):  # 60 s
        if waiting_in_tail():
            print("waiting", flush=True)
            return
        threading.Event().wait(0.01)
    print("not waiting in the tail after 60 s", flush=True)
    tail.close()


threading.Thread(target=announce, daemon=True).start()
items = sum(1 for _ in tail)
print("ended cleanly", flush=True)
