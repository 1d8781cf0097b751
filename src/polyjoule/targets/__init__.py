"""Targets: each a declaration (its machine as data) plus the search protocol.

The one place that names the search targets: :data:`PROVIDERS` lists the modules that
register a target with :mod:`polyjoule.search.target` when imported (other packages add
theirs as entry points of the group ``polyjoule.targets``); :data:`DEFAULT` is the target
``polyjoule map`` uses when none is given; :data:`MODULES` says which provider registers
which name, so that asking for one target imports only its module (a target's modules are
a noticeable part of a cold start).
"""

MODULES: dict[str, str] = {"tinytpu-isa": "polyjoule.targets.tinytpu.target",
                           "tcpa": "polyjoule.targets.tcpa.target"}
PROVIDERS: tuple[str, ...] = tuple(MODULES.values())
DEFAULT = "tinytpu-isa"
#: what ``--objective`` takes per target, its default first (``map --help`` says it without
#: importing a target; tests/cli/test_mapper_input.py checks it against each target's own)
OBJECTIVES: dict[str, tuple[str, ...]] = {"tinytpu-isa": ("cycles", "energy", "edp"),
                                          "tcpa": ("energy", "latency", "edp", "power")}
