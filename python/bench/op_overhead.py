"""Cost of one op from Python: `with optrace.op(...)` beside an empty
context manager and beside `logging` the two "[OP] ..." lines to a file.

Run by op_overhead.sh, which starts a real optraced draining the rings
(at level trace an op is really recorded and stored, not dropped). Every
variant runs ROUNDS times, interleaved round by round, each round timing
OPS ops in a loop; the figure is the median over rounds of the time per op,
as CPU time of the calling thread (what the op costs the runtime, without
the time the thread waits for a core on a shared machine) and as wall time.
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
    """(thread CPU ns, wall ns) per op of one round of `loop` at `level`."""
    optrace.set_level(level)
    deadline = time.monotonic() + 5
    while optrace.get_level() != level and time.monotonic() < deadline:
        time.sleep(0.01)  # with a daemon attached the level changes within a drain cycle
    if optrace.get_level() != level:
        sys.exit(f"op_overhead: the live level did not become {level}")
    cpu, wall = time.thread_time_ns(), time.perf_counter_ns()
    loop(OPS)
    return (time.thread_time_ns() - cpu) / OPS, (time.perf_counter_ns() - wall) / OPS


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
    cpu = {name: [] for name, _, _ in variants}
    wall = {name: [] for name, _, _ in variants}
    for name, loop, level in variants:  # warm-up
        per_op_ns(loop, level)
    for _ in range(ROUNDS):
        for name, loop, level in variants:
            c, w = per_op_ns(loop, level)
            cpu[name].append(c)
            wall[name].append(w)
    optrace.set_level("off")
    handler.close()
    median_cpu = {name: statistics.median(t) for name, t in cpu.items()}
    median_wall = {name: statistics.median(t) for name, t in wall.items()}
    base = median_cpu["empty context manager"]
    print(f"{OPS} ops per round, {ROUNDS} rounds interleaved, median ns per op "
          f"(Python {sys.version.split()[0]})\n")
    print("| variant | CPU ns per op | min .. max | vs empty context manager | wall ns per op |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, _, _ in variants:
        t = cpu[name]
        print(f"| {name} | {median_cpu[name]:.0f} | {min(t):.0f} .. {max(t):.0f} | "
              f"{median_cpu[name] / base:.2f}x | {median_wall[name]:.0f} |")
    logged = median_cpu["logging two [OP] lines to a file"]
    print(f"\nlogging / optrace.op at trace (CPU): "
          f"{logged / median_cpu['optrace.op, level trace']:.1f}x plain, "
          f"{logged / median_cpu['optrace.op with tag/target/device, level trace']:.1f}x "
          "with tag/target/device")

if __name__ == "__main__":
    main()
