"""Opts in (optrace.torch.enable()) and runs aten::mul on the input shapes
and dtypes of CASES (JSON: [[[shape, shape], dtype], ...]), every case in
turn, ROUNDS times, in four phases: at level trace; at level off (not
recorded); at level trace again; then, after aten::neg on FILL distinct
shapes (more than the tag cap), the cases followed by those of NEW_CASES.
Prints {"pid", "phases": [[case index, ...] of each recorded mul, in
order], "neg", "losses"}.

Usage: tag_cache_program.py CASES NEW_CASES ROUNDS FILL
"""

import json
import os
import sys
import time

import optrace
import optrace.torch
import torch

DTYPES = {"f32": torch.float32, "f64": torch.float64, "i64": torch.int64, "i32": torch.int32}


def wait_for_callback(enabled):
    deadline = time.monotonic() + 20
    while optrace.torch.callback_enabled() != enabled:
        if time.monotonic() > deadline:
            raise SystemExit(f"the callback did not become enabled={enabled}")
        time.sleep(0.01)


def main():
    cases = json.loads(sys.argv[1])
    new_cases = json.loads(sys.argv[2])
    rounds, fill = int(sys.argv[3]), int(sys.argv[4])
    tensors = [[torch.ones(shape, dtype=DTYPES[dtype]) for shape in shapes]
               for shapes, dtype in cases + new_cases]
    optrace.torch.enable()
    wait_for_callback(True)

    def run(indices):
        for _ in range(rounds):
            for i in indices:
                torch.mul(*tensors[i])
        return [i for _ in range(rounds) for i in indices]

    old = list(range(len(cases)))
    phases = [run(old)]
    optrace.set_level("off")
    wait_for_callback(False)
    run(old)
    optrace.set_level("trace")
    wait_for_callback(True)
    phases.append(run(old))
    for length in range(1, fill + 1):
        torch.neg(torch.empty(length))
    phases.append(run(old + list(range(len(cases), len(cases) + len(new_cases)))))
    print(json.dumps({"pid": os.getpid(), "phases": phases, "neg": fill,
                      "losses": optrace.torch.losses()}))


main()
