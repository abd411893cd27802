#!/usr/bin/python3
"""Per-op cost of tracing PyTorch, side by side in one run (docs/BENCHMARKS.md).

For each model (a stack of small Linear layers, where per-op cost
dominates; torchvision's resnet18 with random weights; a
TransformerEncoderLayer stack), in eval and in a training step (forward,
backward, SGD step), each configuration runs in a process of its own,
interleaved round by round:
  plain     no callback
  floor     a global RecordFunction callback that asks for inputs and does
            nothing (tests/bench/torch_floor_callback.cc)
  off       optrace.torch enabled, live level off (its callback disabled)
  trace     optrace.torch enabled, level trace, a real optraced draining
  profiler  torch.autograd.profiler.profile(record_shapes=True)
Times are the process's CPU time (the build machines are shared: wall time
holds the waits for a core); one intra-op thread. Medians over the rounds;
per-op overhead = (median - plain median) / ops
per step (ops counted by the floor callback).

  tests/bench/torch_cost.py --build build [--rounds 5]
  tests/bench/torch_cost.py --build build --rss 100000   (RSS over a long run)
  tests/bench/torch_cost.py --build build --scopes 20000 [--rounds 5]
      (CPU time of one `with record_function(...)` range, without and with
      its optional args string, plain against trace: what recording user
      scopes costs, and what asking for inputs adds to it)
"""

import argparse
import ctypes
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

MODELS = {  # name: (steps per eval run, steps per train run)
    "linear": (1000, 300),
    "resnet18": (20, 8),
    "transformer": (150, 50),
}
CONFIGS = ("plain", "floor", "off", "trace", "profiler")


def build_model(name):
    import torch
    torch.manual_seed(0)
    if name == "linear":
        layers = []
        for _ in range(20):
            layers += [torch.nn.Linear(32, 32), torch.nn.ReLU()]
        return torch.nn.Sequential(*layers), torch.randn(4, 32)
    if name == "resnet18":
        import torchvision
        return torchvision.models.resnet18(weights=None), torch.randn(1, 3, 64, 64)
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                             batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=2), torch.randn(2, 16, 64)


def worker(args):
    import torch
    torch.set_num_threads(1)
    floor = None
    if args.config == "floor":
        floor = ctypes.CDLL(args.floor)
        floor.optrace_bench_floor_ops.restype = ctypes.c_uint64
        floor.optrace_bench_floor_enable()
    if args.config in ("off", "trace"):
        import optrace.torch
        optrace.torch.enable()
        time.sleep(0.05)  # the level watcher's first look
    model, x = build_model(args.model)
    train = args.mode == "train"
    model.train(train)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        if train:
            optimiser.zero_grad()
            model(x).sum().backward()
            optimiser.step()
        else:
            with torch.no_grad():
                model(x)

    for _ in range(max(3, args.steps // 10)):
        step()
    ops_before = floor.optrace_bench_floor_ops() if floor else 0
    if args.config == "profiler":
        with torch.autograd.profiler.profile(record_shapes=True):
            start = time.process_time()
            for _ in range(args.steps):
                step()
            seconds = time.process_time() - start
    else:
        start = time.process_time()
        for _ in range(args.steps):
            step()
        seconds = time.process_time() - start
    ops = (floor.optrace_bench_floor_ops() - ops_before) / args.steps if floor else 0
    print(json.dumps({"us_per_step": seconds / args.steps * 1e6, "ops_per_step": ops,
                      "pid": os.getpid()}))


def scope_worker(args):
    """args.steps `with record_function("block"[, "arg"]): pass` ranges;
    prints the CPU time of one."""
    import torch
    import torch.autograd.profiler as profiler
    torch.set_num_threads(1)
    if args.config == "trace":
        import optrace.torch
        optrace.torch.enable()
        time.sleep(0.05)
    extra = ("arg",) if args.with_args else ()
    for _ in range(max(100, args.steps // 10)):
        with profiler.record_function("block", *extra):
            pass
    start = time.process_time()
    for _ in range(args.steps):
        with profiler.record_function("block", *extra):
            pass
    seconds = time.process_time() - start
    print(json.dumps({"ns_per_scope": seconds / args.steps * 1e9, "pid": os.getpid()}))


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def rss_worker(args):
    """The small model for args.steps steps; prints RSS samples. Exits
    without the profiler's end-of-run parsing (os._exit)."""
    import torch
    torch.set_num_threads(1)
    if args.config == "trace":
        import optrace.torch
        optrace.torch.enable()
        time.sleep(0.05)
    model, x = build_model("linear")
    samples = []
    every = max(1, args.steps // 10)

    def run():
        with torch.no_grad():
            for i in range(args.steps):
                model(x)
                if i % every == 0:
                    samples.append((i, rss_kib()))
        samples.append((args.steps, rss_kib()))

    if args.config == "profiler":
        with torch.autograd.profiler.profile(record_shapes=True):
            run()
            print(json.dumps(samples), flush=True)
            os._exit(0)
    run()
    print(json.dumps(samples), flush=True)


class Daemon:
    def __init__(self, build):
        self.folder = tempfile.mkdtemp(prefix="optrace-torch-bench-")
        self.socket = os.path.join(self.folder, "optraced.sock")
        self.log = open(os.path.join(self.folder, "optraced.log"), "w")
        self.process = subprocess.Popen(
            [os.path.join(build, "daemon", "optraced"), "--db",
             os.path.join(self.folder, "optrace.db"), "--socket", self.socket],
            stdout=self.log, stderr=self.log)
        time.sleep(1.0)

    def stop(self):
        self.process.terminate()
        self.process.wait(60)
        shutil.rmtree(self.folder, ignore_errors=True)


def count_drops(daemon, pid, drops):
    """Adds the stored spans and dropped events of process `pid`'s session."""
    import optrace
    with optrace.Client(socket=daemon.socket) as client:
        for _ in range(100):
            session = next((s for s in client.sessions(all=True) if s.pid == pid), None)
            if session is not None and session.state != "running":
                drops["spans"] += session.spans
                drops["dropped"] += session.drops.total
                return
            time.sleep(0.1)


def run_worker(args, env, *worker_args):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), *worker_args],
                         env=env, capture_output=True, text=True, timeout=1200)
    if out.returncode != 0:
        raise SystemExit(f"worker {worker_args} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def environment(args, config):
    env = dict(os.environ, PYTHONPATH=os.path.join(args.build, "python"),
               OPTRACE_LEVEL="trace" if config == "trace" else "off",
               OPTRACE_RING_CAPACITY="262144")
    env.pop("OPTRACE_SINK", None)
    return env


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--rss", type=int, default=0, help="steps of the RSS run (0: none)")
    parser.add_argument("--worker", nargs=4, metavar=("MODEL", "MODE", "CONFIG", "STEPS"))
    parser.add_argument("--rss-worker", nargs=2, metavar=("CONFIG", "STEPS"))
    parser.add_argument("--scopes", type=int, default=0,
                        help="ranges per run of the user scope runs (0: none)")
    parser.add_argument("--scope-worker", nargs=3, metavar=("CONFIG", "ARGS", "STEPS"))
    parser.add_argument("--floor", default="")
    args = parser.parse_args()
    if args.worker:
        args.model, args.mode, args.config, args.steps = args.worker
        args.steps = int(args.steps)
        return worker(args)
    if args.rss_worker:
        args.config, args.steps = args.rss_worker[0], int(args.rss_worker[1])
        return rss_worker(args)
    if args.scope_worker:
        args.config, args.with_args = args.scope_worker[0], args.scope_worker[1] == "args"
        args.steps = int(args.scope_worker[2])
        return scope_worker(args)

    args.build = os.path.abspath(args.build)
    sys.path.insert(0, os.path.join(args.build, "python"))
    floor = os.path.join(args.build, "tests", "bench", "liboptrace_bench_torch_floor.so")
    # The daemon and the workers see only this run's namespace.
    os.environ["OPTRACE_NAMESPACE"] = f"torchbench{os.getpid()}"
    daemon = Daemon(args.build)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        if args.rss:
            for config in ("plain", "trace", "profiler"):
                samples = run_worker(args, environment(args, config), "--rss-worker", config,
                                     str(args.rss))
                print(f"rss {config}: " + " ".join(f"{i}:{kib // 1024}MiB" for i, kib in samples))
            return
        if args.scopes:
            runs = {}
            for _ in range(args.rounds):
                for with_args in ("none", "args"):
                    for config in ("plain", "trace"):
                        r = run_worker(args, environment(args, config), "--scope-worker", config,
                                       with_args, str(args.scopes))
                        runs.setdefault((with_args, config), []).append(r["ns_per_scope"])
            med = {key: statistics.median(values) for key, values in runs.items()}
            print("| record_function | plain ns/range | trace ns/range | trace - plain |")
            print("|---|---|---|---|")
            for with_args in ("none", "args"):
                plain, trace = med[(with_args, "plain")], med[(with_args, "trace")]
                print(f"| {'(name, args)' if with_args == 'args' else '(name)'} | {plain:.0f} | "
                      f"{trace:.0f} | {trace - plain:+.0f} |")
            return
        results = {}
        drops = {"spans": 0, "dropped": 0}
        for _ in range(args.rounds):
            for model in args.models.split(","):
                for mode_index, mode in enumerate(("eval", "train")):
                    steps = MODELS[model][mode_index]
                    for config in CONFIGS:
                        r = run_worker(args, environment(args, config), "--worker", model, mode,
                                       config, str(steps), "--floor", floor)
                        results.setdefault((model, mode), {}).setdefault(config, []).append(r)
                        if config == "trace":
                            count_drops(daemon, r["pid"], drops)
        print("| model | mode | ops/step | plain µs/step | " +
              " | ".join(f"{c} ns/op" for c in CONFIGS[1:]) + " | off vs plain | trace/profiler "
              "| trace/floor |")
        print("|" + "---|" * (len(CONFIGS) + 6))
        for (model, mode), by_config in results.items():
            med = {c: statistics.median(r["us_per_step"] for r in rs) for c, rs in by_config.items()}
            ops = statistics.median(r["ops_per_step"] for r in by_config["floor"])
            per_op = {c: (med[c] - med["plain"]) * 1000 / ops for c in CONFIGS[1:]}
            print(f"| {model} | {mode} | {ops:.0f} | {med['plain']:.1f} | " +
                  " | ".join(f"{per_op[c]:.0f}" for c in CONFIGS[1:]) +
                  f" | {(med['off'] / med['plain'] - 1) * 100:+.1f}% | "
                  f"{per_op['trace'] / per_op['profiler']:.2f} | "
                  f"{per_op['trace'] / per_op['floor']:.2f} |")
        print(f"trace runs: {drops['spans']} spans stored, {drops['dropped']} events dropped")
    finally:
        daemon.stop()


if __name__ == "__main__":
    main()
