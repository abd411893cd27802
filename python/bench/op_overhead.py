"""Cost of one op from Python: `with optrace.op(...)` beside an empty
context manager and beside `logging` the two "[OP] ..." lines to a file.

Run by op_overhead.sh, which starts a real optraced draining the rings
(at level trace an op is really recorded and stored, not dropped). Every
variant runs ROUNDS times, interleaved round by round, each round timing
OPS ops in a loop; the figure is the median over rounds of the time per op.
Prints a markdown table for docs/BENCHMARKS.md.
"""

import logging
import os
import statistics
import sys
import tempfile
import time

import optrace

OPS = int(os.environ.get("OPS", "200000"))
ROUNDS = int(os.environ.get("ROUNDS", "9"))


class EmptyContext:
    """The baseline: a context manager that does nothing."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        return False


def loop_empty(n):
    for _ in range(n):
        with EmptyContext():
            pass


def loop_op(n):
    for _ in range(n):
        with optrace.op("matmul"):
            pass


def loop_op_tagged(n):
    for _ in range(n):
        with optrace.op("matmul", tag="matmul_128x256x512_f32", target="gpu", device=0):
            pass


def make_logging_loop(path):
    logger = logging.getLogger("optrace.bench")
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    handler = logging.FileHandler(path)
    logger.addHandler(handler)

    def loop_logging(n):
        for i in range(n):
            logger.debug("[OP] LAUNCH %s [id=%d] target=%s:%d", "matmul", i, "cpu", 0)
            logger.debug("[OP] COMPLETE %s [id=%d] target=%s:%d", "matmul", i, "cpu", 0)

    return loop_logging, handler


def per_op_ns(loop, level):
    optrace.set_level(level)
    deadline = time.monotonic() + 5
    while optrace.get_level() != level and time.monotonic() < deadline:
        time.sleep(0.01)  # with a daemon attached the level changes within a drain cycle
    if optrace.get_level() != level:
        sys.exit(f"op_overhead: the live level did not become {level}")
    start = time.perf_counter_ns()
    loop(OPS)
    return (time.perf_counter_ns() - start) / OPS


def main():
    folder = tempfile.mkdtemp(prefix="optrace-bench-")
    loop_logging, handler = make_logging_loop(os.path.join(folder, "ops.log"))
    variants = [
        ("empty context manager", loop_empty, "off"),
        ("optrace.op, level off", loop_op, "off"),
        ("optrace.op, level trace", loop_op, "trace"),
        ("optrace.op with tag/target/device, level trace", loop_op_tagged, "trace"),
        ("logging two [OP] lines to a file", loop_logging, "off"),
    ]
    times = {name: [] for name, _, _ in variants}
    for name, loop, level in variants:  # warm-up
        per_op_ns(loop, level)
    for _ in range(ROUNDS):
        for name, loop, level in variants:
            times[name].append(per_op_ns(loop, level))
    optrace.set_level("off")
    handler.close()
    medians = {name: statistics.median(t) for name, t in times.items()}
    base = medians["empty context manager"]
    trace = medians["optrace.op, level trace"]
    print(f"{OPS} ops per round, {ROUNDS} rounds interleaved, median ns per op "
          f"(Python {sys.version.split()[0]})\n")
    print("| variant | ns per op | min .. max | vs empty context manager |")
    print("| --- | ---: | ---: | ---: |")
    for name, _, _ in variants:
        t = times[name]
        print(f"| {name} | {medians[name]:.0f} | {min(t):.0f} .. {max(t):.0f} | "
              f"{medians[name] / base:.2f}x |")
    print(f"\nlogging / optrace.op at trace: {medians['logging two [OP] lines to a file'] / trace:.1f}x")


if __name__ == "__main__":
    main()
