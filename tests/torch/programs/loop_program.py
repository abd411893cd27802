"""An unmodified PyTorch program that runs small ops until the file
argv[1] exists; prints {"pid"} first (a line of JSON), then {"steps"}."""

import json
import os
import sys

import torch

print(json.dumps({"pid": os.getpid()}), flush=True)
a = torch.ones(4, 4)
steps = 0
while not os.path.exists(sys.argv[1]):
    a = torch.mm(a, a) * 0.25  # site:loop
    steps += 1
print(json.dumps({"steps": steps}), flush=True)
