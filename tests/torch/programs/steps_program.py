"""A PyTorch training loop whose steps optrace should find, run
unmodified under `optrace run --torch`: SGD steps of a two-layer model,
each about 10-20 ms on one thread; step SLOW_STEP (1-based, optional) also
runs a 400x400 SVD (about 100 ms), an op no other step runs. Prints a JSON
report as its last line: {"pid", "losses", "steps", "slow_step"}.

Usage: steps_program.py COUNT [SLOW_STEP]
"""

import json
import os
import sys

import optrace.torch
import torch

torch.set_num_threads(1)


def main():
    count = int(sys.argv[1])
    slow_step = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 256))
    optimiser = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(128, 256)
    for step in range(1, count + 1):
        optimiser.zero_grad()
        model(x).sum().backward()
        if step == slow_step:
            torch.linalg.svd(torch.randn(400, 400))
        optimiser.step()
    print(json.dumps({"pid": os.getpid(), "losses": optrace.torch.losses(), "steps": count,
                      "slow_step": slow_step}))


if __name__ == "__main__":
    main()
