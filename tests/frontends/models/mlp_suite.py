"""The workload suite's five MLPs (act-mapper sheet §15) as PyTorch modules, for
``polyjoule import tests/frontends/models/mlp_suite.py:<Class> -i <batch>x<in>``.

Weights bias-free unless the model is about the bias; activations ReLU, except
mlp_bias's sigmoid (no TinyTPU-isa mapping: refused by name).
"""

import torch.nn as nn


def _mlp(widths, bias=False):
    layers = []
    for i, (a, b) in enumerate(zip(widths, widths[1:])):
        if i:
            layers.append(nn.ReLU())
        layers.append(nn.Linear(a, b, bias=bias))
    return nn.Sequential(*layers)


class MlpTiny(nn.Module):
    """batch 4, 16 -> 16 -> 16"""

    def __init__(self):
        super().__init__()
        self.f = _mlp((16, 16, 16))

    def forward(self, x):
        return self.f(x)


class MlpDeep(nn.Module):
    """batch 4, 16 -> 16 -> 16 -> 12 -> 8"""

    def __init__(self):
        super().__init__()
        self.f = _mlp((16, 16, 16, 12, 8))

    def forward(self, x):
        return self.f(x)


class MlpSmall(nn.Module):
    """batch 8, 32 -> 32 -> 16"""

    def __init__(self):
        super().__init__()
        self.f = _mlp((32, 32, 16))

    def forward(self, x):
        return self.f(x)


class MlpWide(nn.Module):
    """batch 64, 64 -> 64 -> 64"""

    def __init__(self):
        super().__init__()
        self.f = _mlp((64, 64, 64))

    def forward(self, x):
        return self.f(x)


class MlpBias(nn.Module):
    """batch 4, 16 -> 16 with nn.Linear's default bias, a sigmoid, then a bias-free 16 -> 16"""

    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(16, 16), nn.Sigmoid(), nn.Linear(16, 16, bias=False))

    def forward(self, x):
        return self.f(x)
