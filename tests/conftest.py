"""Suite-wide settings: a wide console so rich never wraps a line a test looks for
(temporary paths differ in length from run to run), and a headless matplotlib."""

import os

os.environ["COLUMNS"] = "240"
os.environ.setdefault("MPLBACKEND", "Agg")
