"""The same small convolutional model run eagerly or optimised by
TorchScript (torch.jit.freeze of the scripted model, then
torch.jit.optimize_for_inference, which folds batch norms into the
convolutions and fuses what this PyTorch build can fuse), for comparing the
ops each runs with `optrace diff` (docs/pytorch.md).

  optrace run --torch --label eager -- python3 eager_vs_fused.py eager
  optrace run --torch --label fused -- python3 eager_vs_fused.py fused
  optrace diff eager fused
"""

import sys

import torch

STEPS = 20


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(16)
        self.conv2 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(32)
        self.fc = torch.nn.Linear(32, 10)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = torch.relu(self.bn2(self.conv2(x)))
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return torch.relu(self.fc(x))


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = Net().eval()
    x = torch.randn(2, 3, 32, 32)
    if sys.argv[1] == "fused":
        model = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.script(model)))
    with torch.no_grad():
        for _ in range(STEPS):
            model(x)


if __name__ == "__main__":
    main()
