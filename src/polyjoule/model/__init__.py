"""The one loop-nest model: affine expressions, the PRA, the einsum workload."""
