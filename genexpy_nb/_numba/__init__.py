"""Private numba kernels: arrays and scalars only, no validation (the public layer does it)."""
