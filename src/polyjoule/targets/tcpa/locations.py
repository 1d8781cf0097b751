"""The location classes of a processor array: where a value lives or passes through.

``RD`` general-purpose registers (same iteration), ``FD`` feedback FIFOs (a later iteration
on the same PE), ``ID``/``OD`` input/output port registers (to/from a neighbouring PE),
``IOb`` the I/O buffers bordering the grid, ``DR`` DRAM behind them. Reports use this order.
"""

CLASSES = ("RD", "FD", "ID", "OD", "IOb", "DR")
