"""A PyTorch program whose user scopes optrace should record, run under
`optrace run --torch`. Prints a JSON report as its last line: {"pid",
"losses" (optrace.torch.losses()), ...}.

Usage: user_scopes_program.py MODE COUNT, MODE one of
  block     COUNT times: record_function("outer") around
            record_function("my_block") around aten::mm and aten::relu
  train     COUNT SGD steps of a small model (zero_grad, forward,
            backward, step)
  profiler  torch.profiler.profile with a schedule, COUNT prof.step()
            calls around an aten::mul each; the report's "steps" are the
            ProfilerStep#N names PyTorch gave its ranges, in order
"""

import json
import os
import sys

import optrace.torch
import torch
import torch.autograd.profiler

torch.set_num_threads(1)


def block(count):
    a = torch.ones(4, 4)
    for _ in range(count):
        with torch.autograd.profiler.record_function("outer"):  # site:outer
            with torch.autograd.profiler.record_function("my_block"):  # site:my_block
                torch.relu(torch.mm(a, a))  # site:block_ops
    return {}


def train(count):
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 2)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(4, 8)
    for _ in range(count):
        optimiser.zero_grad()
        model(x).sum().backward()
        optimiser.step()
    return {}


def profiler(count):
    # The profiler opens each step's range with
    # torch.autograd.profiler.record_function("ProfilerStep#" + number):
    # a subclass notes the names it is given.
    steps = []

    class NotedRecordFunction(torch.autograd.profiler.record_function):
        def __init__(self, name, args=None):
            if name.startswith("ProfilerStep#"):
                steps.append(name)
            super().__init__(name, args)

    torch.autograd.profiler.record_function = NotedRecordFunction
    schedule = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    a = torch.ones(2)
    with torch.profiler.profile(schedule=schedule) as prof:
        for _ in range(count):
            a = torch.mul(a, 1.0)
            prof.step()
    return {"steps": steps}


def main():
    mode, count = sys.argv[1], int(sys.argv[2])
    report = {"block": block, "train": train, "profiler": profiler}[mode](count)
    report.update(pid=os.getpid(), losses=optrace.torch.losses())
    print(json.dumps(report))


if __name__ == "__main__":
    main()
