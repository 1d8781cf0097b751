"""A toy target for the target-free core: it answers the protocol without a machine."""

import pytest

from polyjoule.analysis import steps
from polyjoule.analysis.machine import Machine, Opcode, Space
from polyjoule.errors import Kind
from polyjoule.search.cost import Cost, Priced
from polyjoule.search.mapspace import Mapspace
from polyjoule.search.nest import refuse


class Toy:
    """Refuses a nest whose first loop is K ('k-first') and, independently, any nest
    with more than three emitted loops ('deep'); cost = (work, loops): one step per
    emitted loop of its factor's work. ``exact=False`` offers partial tiles."""

    objectives = ("work", "loops")
    cause_kinds = {"k-first": Kind.EXPRESS, "deep": Kind.REFUSE}
    relievable = ("k-first",)
    machine = Machine("toy", (Space("r", 1),), (Opcode(1, "op", (("u", lambda f: f["nr"]),)),))

    def __init__(self, exact: bool = True, name: str = "toy") -> None:
        self.exact = exact
        self.name = name

    def mapspace(self, workload, extents):
        return Mapspace(({"M": 2, "K": 2, "N": 2}, {"M": 3, "K": 2, "N": 2},
                         {"M": 4, "K": 2, "N": 2}), self.exact)

    def refusals(self, workload, extents, nest):
        emitted = [lp for lp in nest if lp.level == "outer"]
        found = []
        if emitted and emitted[0].rank == "K":
            found.append(("k-first", "K outermost"))
        if len(emitted) > 3:
            found.append(("deep", f"{len(emitted)} loops"))
        return found

    def lower(self, workload, extents, nest, relieve=frozenset()):
        refuse([f for f in self.refusals(workload, extents, nest) if f[0] not in relieve],
               self.cause_kinds)
        return nest

    def price(self, program, *, charge_control=True):
        tl = steps.run([self.machine.step(i, 1, {"nr": lp.factor})
                        for i, lp in enumerate(program)])
        return Priced(Cost(self.objectives, (tl.makespan, len(program))), tl)

    def verify(self, workload, extents, program, seed=0):
        return True


@pytest.fixture
def toy():
    return Toy()


@pytest.fixture
def toy_cls():
    return Toy
