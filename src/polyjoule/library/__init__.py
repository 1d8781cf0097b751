"""Built-in data: kernels (PRAs), einsum workloads and energy tables."""
