"""Machine as data and the in-order list scheduler over its steps (a toy machine)."""

import pytest

from polyjoule.analysis.machine import Machine, Opcode, Region, Space
from polyjoule.analysis.steps import Timeline, run
from polyjoule.errors import MachineError, StepError


def _toy_machine() -> Machine:
    return Machine(
        "toy", (Space("r", 8),),
        opcodes=(Opcode(1, "w", loads=(("alu", lambda f: f["n"]),),
                        writes=(lambda f: Region("r", f["at"], f["n"]),)),
                 Opcode(2, "rd", loads=(("out", lambda f: f["n"]), ("alu", lambda f: 0)),
                        reads=(lambda f: Region("r", f["at"], f["n"]),))),
        issue_load=(("seq", 1),))


def test_scheduler_respects_dependences_and_units():
    m = _toy_machine()
    f = {"n": 4, "at": 0}
    steps = [m.step(0, 1, f), m.control_step(1, "loop"), m.step(2, 2, f),
             m.step(3, 2, {**f, "at": 4})]
    assert steps[2].units == ("seq", "out")  # zero work is dropped
    assert steps[1].control and not steps[0].control
    s = run(steps)
    assert isinstance(s, Timeline)
    # step 3 has no dependence but waits for the in-order "out" unit
    assert s.begin == (0, 1, 4, 8) and s.finish == (4, 2, 8, 12)
    assert s.blame == (None, 0, 0, 2)  # 1: sequencer, 2: data, 3: the "out" unit
    assert s.makespan == 12
    assert s.bottleneck == ("out", 8)
    assert s.critical_path() == [0, 2, 3]
    with pytest.raises(MachineError, match="opcode 9 not declared"):
        m.step(4, 9, f)
    with pytest.raises(StepError):
        run([steps[0], steps[0]])


def test_region_overlap():
    assert Region("a", 0, 4).overlaps(Region("a", 3, 1))
    assert not Region("a", 0, 4).overlaps(Region("a", 4, 1))
    assert not Region("a", 0, 4).overlaps(Region("b", 0, 4))
