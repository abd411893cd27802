"""A small training loop with the annotations PyTorch programs carry:
a record_function range of the program's own around the loss, the
optimizer's step and zero_grad ranges, and torch.profiler's ProfilerStep#N
around each step (a schedule given), for reading user scopes in optrace
(docs/pytorch.md, "User scopes").

  optrace run --torch -- python3 annotated_training.py
"""

import torch
import torch.autograd.profiler

STEPS = 5

torch.manual_seed(0)
torch.set_num_threads(1)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, target = torch.randn(8, 16), torch.randn(8, 4)
schedule = torch.profiler.schedule(wait=1, warmup=1, active=1, repeat=1)
with torch.profiler.profile(schedule=schedule) as prof:
    for _ in range(STEPS):
        optimizer.zero_grad()
        with torch.autograd.profiler.record_function("loss"):
            loss = torch.nn.functional.mse_loss(model(x), target)
        loss.backward()
        optimizer.step()
        prof.step()
