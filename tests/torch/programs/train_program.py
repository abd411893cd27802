"""An unmodified PyTorch program (it never imports optrace): a few
training steps of a small model (forward, backward, optimiser step), and a
second thread running ops. Prints a JSON report of what it did:
{"pid", "line_forward", "thread_ops"}.

Usage: train_program.py STEPS [--profile PATH]   (with --profile, the
same steps, without the thread, run under torch.autograd.profiler and the
counts of its events per name are written to PATH as JSON).
"""

import json
import os
import sys
import threading

import torch

torch.manual_seed(0)
torch.set_num_threads(1)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        return torch.softmax(self.fc2(torch.relu(self.fc1(x))), dim=1)  # site:forward


def train(steps):
    model = Model()
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 16)
    target = torch.randn(8, 4)
    for _ in range(steps):
        optimiser.zero_grad()
        loss = (model(x) * target).sum()
        loss.backward()  # site:backward
        optimiser.step()


def thread_ops(count):
    a = torch.ones(3, 5)
    for _ in range(count):
        a = torch.mul(a, 1.0)  # site:thread


def main():
    steps = int(sys.argv[1])
    profile = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--profile" else None

    def run():
        # The profiler sees the ops of the thread that started it only:
        # the cross-check runs one thread.
        if not profile:
            worker = threading.Thread(target=thread_ops, args=(50,))
            worker.start()
            worker.join()
        train(steps)

    if profile:
        with torch.autograd.profiler.profile(record_shapes=True) as prof:
            run()
        # Its raw records: function_events drops an event whose only child
        # has its name (aten::div_ calling aten::div_), judged by time.
        counts = {}
        for event in prof.kineto_results.events():
            counts[event.name()] = counts.get(event.name(), 0) + 1
        with open(profile, "w") as f:
            json.dump(counts, f)
    else:
        run()
    print(json.dumps({"pid": os.getpid()}))


if __name__ == "__main__":
    main()
