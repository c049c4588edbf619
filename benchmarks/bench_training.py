"""Time per model of the seed pools (python benchmarks/bench_training.py [n_models]).

Prints wall-clock and CPU seconds per model for the shipped configurations (one thread), and
the CNN step with the fused vs the for-each Adam. On a shared machine, CPU time is the
number to plan with: wall time grows with the load of other processes.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import torch

from genexpy_nb.experiments import SmallCNN, digits_binary_task, pool_seeds, train_model
from genexpy_nb.experiments._torch import torch_threads


def bench_cnn(n_models: int) -> None:
    task = digits_binary_task()
    init, order = pool_seeds(0, "both", n_models + 1)
    with torch_threads(1):
        # warm-up: the first model pays torch's one-off initialisation
        train_model(lambda: SmallCNN(1, 8), task, init_seed=int(init[0]),
                    order_seed=int(order[0]), epochs=1)
        wall, cpu = [], []
        for i in range(1, n_models + 1):
            r = train_model(lambda: SmallCNN(1, 8), task, init_seed=int(init[i]),
                            order_seed=int(order[i]), epochs=30)
            wall.append(float(r["wall_time_s"]))
            cpu.append(float(r["cpu_time_s"]))
    print(f"CNN, 30 epochs, 600 train images: {np.mean(wall):.2f} s wall, "
          f"{np.mean(cpu):.2f} s CPU per model (600 models: {600 * np.mean(cpu) / 60:.1f} min CPU)")


def bench_adam(steps: int = 300) -> None:
    X = torch.rand(32, 1, 8, 8)
    y = torch.randint(0, 2, (32,))
    for kw in ({"foreach": False}, {"foreach": True}, {"fused": True}):
        torch.manual_seed(0)
        m = SmallCNN(1, 8)
        try:
            opt = torch.optim.Adam(m.parameters(), lr=1e-3, **kw)
        except (RuntimeError, TypeError, ValueError) as exc:
            print(f"Adam {kw}: not available ({exc})")
            continue
        loss_fn = torch.nn.CrossEntropyLoss()
        with torch_threads(1):
            c0 = time.process_time()
            for _ in range(steps):
                opt.zero_grad(set_to_none=True)
                loss_fn(m(X), y).backward()
                opt.step()
            dt = time.process_time() - c0
        print(f"Adam {kw}: {1e3 * dt / steps:.2f} ms CPU per step (batch 32)")


if __name__ == "__main__":
    bench_adam()
    bench_cnn(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
