"""TinyTPU-isa energy: event counts against independent computations, the table, objectives.

Witnesses: the workload's shape (MACs = M*K*N, operand and result words), and the reference
model run over memories that count their own row reads and writes and their matmuls.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from polyjoule.errors import EnergyTableError, SpecError
from polyjoule.library.workloads import get
from polyjoule.search.search import Problem, search
from polyjoule.targets.tinytpu import energy, refmodel
from polyjoule.targets.tinytpu.assembler import check_program, expand, fetches
from polyjoule.targets.tinytpu.isa import Instr, Op
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.programs import gemm_program, vadd_program
from polyjoule.targets.tinytpu.target import TinyTPUTarget

CFG16, CFG64 = Config(MAXDIM=16), Config(MAXDIM=64)
SHAPES = ((4, 4, 4), (8, 8, 8), (12, 12, 12), (16, 16, 8), (16, 16, 16), (8, 16, 4))


def _counts(program, cfg):
    return energy.count_events(expand(program, cfg), len(fetches(program, cfg)), cfg)


# --------------------------------------------------------------- counts vs the workload shape

@pytest.mark.parametrize("cfg", [CFG16, CFG64], ids=["maxdim16", "maxdim64"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_shipped_gemm_counts_equal_the_workload_shape(shape, cfg):
    M, K, N = shape
    T = cfg.T
    n = _counts(gemm_program(M, K, N, relu=True, cfg=cfg), cfg)
    assert n["mac"] == M * K * N
    # each operand element and each result element crosses the DMA engines once
    assert n["dma_word"] == (M * K + K * N + M * N) // T
    assert n["dram_write"] == M * N // T
    # the operand bursts read whole DRAM rows: M rows of A and K rows of B, MAXDIM/T words each
    assert n["dram_read"] == (M + K) * cfg.MAXDIM // T
    assert n["saturate"] == n["relu"] == M * N  # one clip and one relu per output element
    # every partial sum but the first of each output element is added in accu: (K/T - 1) per row
    assert n["acc_add"] == M * N * (K // T - 1)
    assert n["imem_load"] == n["imem_write"] == cfg.IMEM_SIZE


@pytest.mark.parametrize("wl,shape", [("gemm", (16, 16, 16)), ("gemm.relu", (16, 16, 16)),
                                      ("gemm", (12, 12, 12)), ("gemm.sum", (8, 8, 8)),
                                      ("gemm.sum.relu", (16, 16, 4))])
def test_every_candidates_macs_are_the_workloads(wl, shape):
    w = get(wl)
    ext = dict(zip(w.ranks, shape, strict=True))
    tgt = TinyTPUTarget(CFG16)
    res = search(Problem(w, ext), tgt)
    assert res.candidates
    for c in res.candidates:
        e = tgt.energy(c.program)
        assert e.counts["mac"] == len(w.contractions) * int(np.prod(shape))
        assert e.counts["fetch"] == len(fetches(list(c.program.instrs), CFG16))
        assert e.counts["fetch"] > tgt.emits(c.program)  # loop control is fetched too


# ---------------------------------------------------- counts vs the instrumented reference model

class Counted(np.ndarray):
    """A memory that counts the rows read and written through it, and the MACs of every
    matmul over its rows: a witness that knows nothing of the event formulas."""

    def __new__(cls, arr, name, tally):
        obj = np.asarray(arr).view(cls)
        obj.name, obj.tally, obj.root = name, tally, True
        return obj

    def __array_finalize__(self, obj):
        self.name, self.tally = getattr(obj, "name", None), getattr(obj, "tally", None)
        self.root = False

    def _rows(self, key):
        k = key[0] if isinstance(key, tuple) else key
        return len(range(*k.indices(self.shape[0]))) if isinstance(k, slice) else 1

    def __getitem__(self, key):
        if self.root:
            self.tally[f"{self.name}_read"] += self._rows(key)
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        root, self.root = self.root, False  # numpy's setitem reads the target view itself
        if root:
            self.tally[f"{self.name}_write"] += self._rows(key)
        try:
            super().__setitem__(key, np.asarray(value))
        finally:
            self.root = root

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        args = [np.asarray(x) for x in inputs]
        if ufunc is np.matmul:
            a, b = args
            self.tally["mac"] += a.shape[0] * a.shape[1] * b.shape[1]
        return getattr(ufunc, method)(*args, **kw)


def _witness(program, cfg, seed=0):
    """Run the program on the reference model over counting memories; the tallies."""
    rng = np.random.default_rng(seed)
    dram = [rng.integers(-8, 9, (cfg.MAXDIM, cfg.MAXDIM)).astype(np.int8) for _ in range(3)]
    m = refmodel.MachineState(*dram, cfg)
    tally: Counter = Counter()
    for name in ("A", "B", "C", "spad", "vr", "ar"):
        setattr(m, name, Counted(getattr(m, name), name, tally))
    for x in check_program(program, cfg):
        m.issue(x)
    return tally


def _mixed_program(cfg):
    """Every data opcode: dma_ld to spad and vr paths via vld, mm overwrite and accumulate,
    vaddrelu, nop, mvout (written for this test; checked by the checker)."""
    T = cfg.T
    return [
        Instr(Op.DMA_LD, (0, 0, 0, 8), T), Instr(Op.VLD, (0, 8, 0, 0), T),
        Instr(Op.DMA_LD, (1, 0, 0, 0), T), Instr(Op.NOP),
        Instr(Op.MM, (0, 0, 0, 0), T), Instr(Op.MM, (0, 0, 1, 0), T),
        Instr(Op.MM, (0, 20, 0, 0), T), Instr(Op.VADDRELU, (40, 0, 20, 0), T),
        Instr(Op.MVOUT, (40, 0, 0, 0), T),
    ]


def _programs():
    yield "gemm 16x16x16", gemm_program(16, 16, 16, cfg=CFG16), CFG16
    yield "gemm.relu 8x16x12 (maxdim64)", gemm_program(8, 16, 12, relu=True, cfg=CFG64), CFG64
    yield "vadd_program", vadd_program(CFG16), CFG16
    yield "mixed", _mixed_program(CFG16), CFG16
    tgt = TinyTPUTarget(CFG16)
    for wl, shape in (("gemm.relu", (16, 16, 16)), ("gemm.sum.relu", (16, 16, 4))):
        w = get(wl)
        for c in search(Problem(w, dict(zip(w.ranks, shape, strict=True))), tgt).candidates:
            yield f"{wl} {c.label}", list(c.program.instrs), CFG16


@pytest.mark.parametrize("title,program,cfg", list(_programs()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_counts_equal_the_instrumented_reference_model(title, program, cfg):
    seen = _witness(program, cfg)
    n = _counts(program, cfg)
    for ev in ("mac", "spad_read", "spad_write", "vr_read", "vr_write", "ar_read", "ar_write"):
        assert n[ev] == seen[ev], (title, ev)
    assert n["dma_word"] == seen["A_read"] + seen["B_read"] + seen["C_write"]
    assert n["dram_write"] == seen["C_write"]
    assert seen["mac"] > 0 and seen["ar_read"] > 0  # the witness saw work


# --------------------------------------------------------------------------- energy = counts x table

def test_energy_moves_by_exactly_the_overridden_entry(tmp_path):
    M, K, N = 16, 16, 8
    prog = gemm_program(M, K, N, cfg=CFG16)
    base = energy.program_energy(expand(prog, CFG16), len(fetches(prog, CFG16)), CFG16)
    f = tmp_path / "t.yaml"
    f.write_text("unit_pj:\n  mac_int8: {pj: 0.5, source: test}\n"
                 "  dram_read: {pj: 1280.0, bits: 64, source: same per bit}\n")
    table = energy.load_energies(f)
    more = energy.program_energy(expand(prog, CFG16), len(fetches(prog, CFG16)), CFG16, table)
    # 0.2 pJ more per MAC, and the DRAM entry re-stated per 64 bits changes nothing
    assert more.total_pj - base.total_pj == pytest.approx(0.2 * M * K * N)
    assert table.sources["mac_int8"] == f"{f}: test" and table.name.endswith("t.yaml")


def test_shipped_table_prices_every_entry_with_a_source():
    t = energy.default_energies()
    assert set(t.pj) == set(energy.OP_ENTRIES + energy.WIDTH_ENTRIES)
    assert all(t.sources[k] and t.pj[k] > 0 for k in t.pj)
    assert t.pj["mac_int8"] == pytest.approx(0.2 + 0.1)  # Horowitz: int8 mult + int32 add
    assert (t.pj["spad_read"], t.bits["spad_read"]) == (10.0, 64)  # 8 KB SRAM 64-bit read
    assert set(energy._widths(CFG16)) == set(energy.EVENTS)


@pytest.mark.parametrize("text,field", [
    ("unit_pj:\n  macc: {pj: 1}\n", "unit_pj.macc"),
    ("unit_pj:\n  mac_int8: {pj: -1}\n", "unit_pj.mac_int8.pj"),
    ("unit_pj:\n  mac_int8: {pj: 0}\n", "unit_pj.mac_int8.pj"),
    ("unit_pj:\n  mac_int8: {pj: .inf}\n", "unit_pj.mac_int8.pj"),
    ("unit_pj:\n  spad_read: {pj: 1}\n", "unit_pj.spad_read.bits"),
    ("unit_pj:\n  dram_read: {pj: 1, bits: 12}\n", "unit_pj.dram_read.bits"),
    ("unit_pj:\n  add_int32: {pj: 1, bits: 32}\n", "unit_pj.add_int32.bits"),
    ("unit_pj:\n  mac_int8: {pj: 1, colour: red}\n", "unit_pj.mac_int8.colour"),
    ("version: 2\n", "version"),
    ("- 1\n", "expected a mapping"),
])
def test_bad_tables_name_file_and_field(tmp_path, text, field):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(EnergyTableError) as e:
        energy.load_energies(f)
    assert str(e.value).startswith(f"{f}: ") and field in str(e.value)
    assert "\n" not in str(e.value)


def test_unreadable_table_is_a_spec_error(tmp_path):
    with pytest.raises(SpecError, match="cannot read"):
        energy.load_energies(tmp_path / "missing.yaml")


# --------------------------------------------------------------------------- objectives

def _candidates(objective, wl="gemm.relu", shape=(16, 16, 16)):
    w = get(wl)
    tgt = TinyTPUTarget(CFG16).with_objective(objective)
    return tgt, search(Problem(w, dict(zip(w.ranks, shape, strict=True))), tgt).candidates


@pytest.mark.parametrize("wl,shape", [("gemm.relu", (16, 16, 16)), ("gemm", (12, 12, 12)),
                                      ("gemm", (16, 16, 8))])
def test_energy_and_edp_rank_by_the_energy_of_every_candidate(wl, shape):
    cyc, by_cycles = _candidates("cycles", wl, shape)
    # energies and makespans priced on the cycles target: an independent path to the ranking
    pj = {c.label: cyc.energy_pj(c.program) for c in by_cycles}
    span = {c.label: c.cost["makespan"] for c in by_cycles}
    tgt, by_energy = _candidates("energy", wl, shape)
    assert tgt.objectives == ("energy_pj", "makespan")
    assert [c.label for c in by_energy] == sorted(pj, key=lambda k: (pj[k], span[k], k))
    assert all(c.cost["energy_pj"] == pytest.approx(pj[c.label]) for c in by_energy)
    _, by_edp = _candidates("edp", wl, shape)
    assert [c.label for c in by_edp] == sorted(pj, key=lambda k: (pj[k] * span[k], span[k], k))
    for c in by_edp:
        assert c.cost["edp"] == pytest.approx(pj[c.label] * span[c.label])
        assert c.cost["makespan"] == span[c.label]


def test_energy_ranking_differs_from_cycles_where_the_costs_disagree():
    _, by_cycles = _candidates("cycles")
    _, by_energy = _candidates("energy")
    assert [c.label for c in by_cycles] != [c.label for c in by_energy]
    assert by_cycles[0].label == by_energy[0].label == "N4>K4"


def test_without_loop_charging_control_fetches_are_not_charged():
    tgt, cands = _candidates("energy")
    best = cands[0]
    per_fetch = energy.default_energies().per_event("imem_read", 128)
    with_ctl = tgt.price(best.program).cost["energy_pj"]
    without = tgt.price(best.program, charge_control=False).cost["energy_pj"]
    control = len(fetches(list(best.program.instrs), CFG16)) - tgt.emits(best.program)
    assert with_ctl - without == pytest.approx(control * per_fetch)


def test_objective_survives_another_machine_and_bad_objective_is_named():
    tgt = TinyTPUTarget(CFG16).with_objective("edp").on_machine("maxdim64")
    assert tgt.objectives == ("edp", "makespan") and tgt.cfg.MAXDIM == 64
    with pytest.raises(SpecError, match="--objective: 'power'"):
        TinyTPUTarget(CFG16, objective="power")
    assert TinyTPUTarget(CFG16).margin is not None
    cyc, cands = _candidates("energy")
    assert cyc.margin(cands[0].cost, cands[1].cost) is None  # no measured energy: no error bar


def test_a_program_priced_by_two_tables_gets_each_tables_energy(tmp_path):
    f = tmp_path / "t.yaml"
    f.write_text("unit_pj:\n  mac_int8: {pj: 1.3}\n")
    plain, cands = _candidates("energy", "gemm", (8, 8, 8))
    other = plain.with_objective("energy", str(f))
    prog = cands[0].program  # lowered (and priced) by the plain target
    assert other.energy_pj(prog) - plain.energy_pj(prog) == pytest.approx(1.0 * 8 * 8 * 8)
