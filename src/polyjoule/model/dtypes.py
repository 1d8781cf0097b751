"""The data types a loop nest computes in; each selects its op energies in the energy table.

A module of its own so that the command line can name them without importing the model.
"""

DTYPES = ("fp64", "fp32", "fp16", "int32", "int16", "int8")
