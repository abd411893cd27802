"""Opts in (optrace.torch.enable()) and runs ops on COUNT distinct shapes,
more than the tag cap; prints {"pid", "ops", "losses"}: the ops it ran
(aten::empty and aten::neg of a 1-d tensor of each length 1..COUNT, so
COUNT of each), and optrace.torch.losses()."""

import json
import os
import sys

import optrace.torch
import torch

optrace.torch.enable()
count = int(sys.argv[1])
for length in range(1, count + 1):
    torch.neg(torch.empty(length))
print(json.dumps({"pid": os.getpid(), "ops": count, "losses": optrace.torch.losses()}))
