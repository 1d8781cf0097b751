"""Targets: each a declaration (its machine as data) plus the search protocol.

The one place that names the search targets: :data:`PROVIDERS` lists the modules that
register a target with :mod:`polyjoule.search.target` when imported (other packages add
theirs as entry points of the group ``polyjoule.targets``); :data:`DEFAULT` is the target
``polyjoule map`` uses when none is given.
"""

PROVIDERS: tuple[str, ...] = ("polyjoule.targets.tinytpu.target", "polyjoule.targets.tcpa.target")
DEFAULT = "tinytpu-isa"
