"""Run as another uid: asks the daemon at argv[1] for session argv[2] and
for a global level change, and prints the optrace error class of each."""

import sys

import optrace

client = optrace.Client(socket=sys.argv[1])
for call in (lambda: client.session(int(sys.argv[2])), lambda: client.set_level("trace")):
    try:
        call()
        print("no error")
    except optrace.Error as e:
        print(type(e).__name__, e.code)
