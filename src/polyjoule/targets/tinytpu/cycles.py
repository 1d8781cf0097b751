"""Event model of TinyTPU-isa timing: ap_start to ap_done cycles of one program.

What is modelled (sheet §5, §13): the imem prefetch (8 words per cycle); the
sequencer fetching one instruction (data or loop/endloop) every ``SEQ_II`` = 5
cycles and dispatching copies, upstream first, into per-unit control FIFOs of
depth ``QD`` (a full FIFO stalls it); every unit in order, running concurrently
with the others; dma_ld's operand burst before its first row (only the longer of
the A and B bursts is charged, see :class:`CycleTiming`); row streams between units at
one word per cycle with FIFO slack ``QD`` (dma_ld -> spm/vru, spm -> vru,
vru -> array -> accu, accu -> dma_st); the weight path (T+1 words per mm down
``wcol``, shadow register FIFO ``wq`` of depth 4); accu at one iteration per row
(vadd/vaddrelu two); and the drain of the last rows through dma_st.

Not modelled: RTL non-completion (sheet §14 item 24: no predicate is known).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from polyjoule.targets.tinytpu.assembler import Issue, fetches, header_of
from polyjoule.targets.tinytpu.isa import OPCODES, Instr, Op
from polyjoule.targets.tinytpu.measured import ALL, Measurement
from polyjoule.targets.tinytpu.params import DEFAULT, PREFETCH_WORDS, Config
from polyjoule.targets.tinytpu.programs import gemm_program

WQ_DEPTH = 4  # shadow weight register FIFO per PE (sheet §5)
DMA_LD_HEADER_WORDS = 2  # the sequencer sends dma_ld imem[1] and imem[7] (sheet §5)


@dataclass(frozen=True)
class CycleTiming:
    """Timing constants. Documented ones are facts; the rest are calibrated (see docs).

    - ``seq_ii`` (documented): sequencer fetch loop II = 5 cycles.
    - ``prefetch_words`` (documented): imem words prefetched per cycle (512-bit gmem0).
    - ``header_words`` (documented): control words the sequencer sends before pc 0.
    - ``longer_burst_only`` (DERIVED in the sheet): charge max(A burst, B burst).
    - ``burst_setup`` (calibrated, physical): AXI read request latency before the
      first burst word.
    - ``startup`` (calibrated): ap_start handshake, m_axi set-up and ap_done, in cycles.
    - ``array_latency_per_t``/``array_latency`` (calibrated, physical): cycles from
      the vru reading an activation row to accu receiving its packed partial sums;
      the wavefront crosses T PEs east and T south, so it grows with T.
    - ``weight_latency_per_t`` (calibrated, physical): extra cycles for a weight
      word to walk down column 0 and east along its row, per T.
    - ``dst_row`` (calibrated): cycles dma_st spends per C row (a single-beat,
      non-contiguous AXI write); fitted to the steady-state sweep, where mvout rows
      throttle accu once the ac2sp FIFO is full.
    """

    seq_ii: int = 5
    prefetch_words: int = PREFETCH_WORDS
    header_words: int = 7
    longer_burst_only: bool = True
    startup: float = 80.0
    burst_setup: float = 15.0
    array_latency_per_t: float = 4.0
    array_latency: float = 0.0
    weight_latency_per_t: float = 2.0
    dst_row: float = 2.8


CALIBRATED = CycleTiming()


@dataclass
class CycleResult:
    """Cycle estimate with the per-unit busy work and where the time went."""

    cycles: int
    prefetch: int
    burst: int
    unit_busy: dict[str, float] = field(default_factory=dict)
    unit_done: dict[str, float] = field(default_factory=dict)
    sequencer_fetches: int = 0
    sequencer_stall: float = 0.0

    def breakdown(self) -> dict[str, object]:
        out: dict[str, object] = {"cycles": self.cycles, "prefetch": self.prefetch,
                                  "operand burst": self.burst,
                                  "sequencer fetches": self.sequencer_fetches,
                                  "sequencer stall": round(self.sequencer_stall)}
        for u, v in self.unit_busy.items():
            out[f"busy {u}"] = round(v)
        for u, v in self.unit_done.items():
            out[f"done {u}"] = round(v)
        return out


class _Fifo:
    """Control FIFO of depth QD: a write waits until the unit has popped the word QD back."""

    def __init__(self, depth: int):
        self.depth = depth
        self.pops: list[float] = []
        self.writes = 0

    def write_time(self, t: float) -> float:
        j = self.writes - self.depth
        return max(t, self.pops[j]) if j >= 0 else t

    def wrote(self) -> None:
        self.writes += 1


def _stream(p0: float, c0: float, n: int, q: int, lat: float = 1.0) -> tuple[float, float]:
    """Producer and consumer finish times of an n-row stream at one row per cycle each.

    The consumer takes row i no earlier than ``lat`` after it was produced; the producer
    runs at most ``q`` rows ahead of the consumer (FIFO depth).
    """
    c_start = max(c0, p0 + lat)
    p_start = max(p0, c_start - lat - q)
    return p_start + n, c_start + n


def simulate(program: Sequence[Instr], cfg: Config = DEFAULT,
             timing: CycleTiming = CALIBRATED) -> CycleResult:
    """Run the event model over the program's fetch order (the program must be legal)."""
    trace = fetches(program, cfg)
    stream = [x for x in trace if isinstance(x, Issue)]
    h = header_of(program, stream, cfg)
    prefetch = math.ceil(cfg.IMEM_SIZE / timing.prefetch_words)
    spans = (h.a_span, h.b_span)
    words = (max(spans) * cfg.WPR if timing.longer_burst_only else sum(spans) * cfg.WPR)
    burst = math.ceil(words / cfg.DMA_WORDS)
    model = _EventModel(cfg, timing, prefetch, burst)
    for x in trace:
        if isinstance(x, Issue):
            model.issue(x)
        else:
            model.seq += timing.seq_ii
    done = max(max(model.free.values()), model.seq)
    return CycleResult(cycles=round(done), prefetch=prefetch, burst=burst,
                       unit_busy=model.busy, unit_done={u: model.free[u] for u in UNITS},
                       sequencer_fetches=len(trace), sequencer_stall=model.stall)


UNITS = ("dma_ld", "spm", "vru", "array", "accu", "dma_st")


class _EventModel:
    """Unit free times and busy work, the control FIFOs, and the sequencer clock."""

    def __init__(self, cfg: Config, tm: CycleTiming, prefetch: int, burst: int) -> None:
        self.cfg, self.tm = cfg, tm
        self.free = dict.fromkeys(UNITS, 0.0)
        self.busy = dict.fromkeys(UNITS, 0.0)
        self.fifo = {u: _Fifo(cfg.QD) for u in ("dma_ld", "spm", "vru", "accu", "dma_st")}
        t0 = tm.startup + prefetch
        # dma_ld reads its two header words (imem[1] rows, imem[7] spans), then bursts
        self.free["dma_ld"] = t0 + DMA_LD_HEADER_WORDS + tm.burst_setup + burst
        for u in ("spm", "vru", "accu", "dma_st"):
            self.free[u] = t0 + tm.header_words
        self.free["array"] = t0
        self.seq = t0 + tm.header_words
        self.stall = 0.0
        self.array_starts: list[float] = []

    def pop(self, u: str, d: float, extra: float = 0.0) -> float:
        s = max(d + 1, self.free[u], extra)
        self.fifo[u].pops.append(s)
        return s

    def dispatch(self, x: Issue) -> dict[str, float]:
        """Write the issue's control words into its units' FIFOs, in dispatch order."""
        t = self.seq
        disp: dict[str, float] = {}
        for u in OPCODES[x.op].dispatch:
            if u == "spm|vru":
                u = "vru" if x.f0 & 2 else "spm"
            w = self.fifo[u].write_time(t)
            self.stall += w - t
            disp[u] = w
            self.fifo[u].wrote()
            t = w + 1
        self.seq = max(self.seq + self.tm.seq_ii, t)
        return disp

    def issue(self, x: Issue) -> None:
        disp = self.dispatch(x)
        if x.op in (Op.DMA_LD, Op.VLD):
            self.load(x, disp)
        elif x.op == Op.MM:
            self.mm(x.nr, disp)
        elif x.op in (Op.VADD, Op.VADDRELU, Op.VRELU):
            steps = OPCODES[x.op].accu_steps * x.nr
            self.free["accu"] = self.pop("accu", disp["accu"]) + steps
            self.busy["accu"] += steps
        elif x.op == Op.MVOUT:
            s_acc = self.pop("accu", disp["accu"])
            s_dst = self.pop("dma_st", disp["dma_st"])
            self.free["accu"], self.free["dma_st"] = _mvout(s_acc, s_dst, x.nr, self.cfg.QD,
                                                            self.tm.dst_row)
            self.busy["accu"] += x.nr
            self.busy["dma_st"] += x.nr * self.tm.dst_row

    def load(self, x: Issue, disp: dict[str, float]) -> None:
        """dma_ld (DRAM -> spad or vr) or vld (spad -> vr): one producer/consumer stream."""
        src, dst = ("dma_ld", "vru" if x.f0 & 2 else "spm") if x.op == Op.DMA_LD else (
            "spm", "vru")
        s_src = self.pop(src, disp[src])
        s_dst = self.pop(dst, disp[dst])
        self.free[src], self.free[dst] = _stream(s_src, s_dst, x.nr, self.cfg.QD)
        self.busy[src] += x.nr
        self.busy[dst] += x.nr

    def mm(self, nr: int, disp: dict[str, float]) -> None:
        T, QD, tm, free = self.cfg.T, self.cfg.QD, self.tm, self.free
        j = len(self.array_starts)
        slot = self.array_starts[j - WQ_DEPTH] if j >= WQ_DEPTH else 0.0
        s_sp = self.pop("spm", disp["spm"], slot)
        free["spm"] = s_sp + T + 1
        self.busy["spm"] += T + 1
        w_ready = s_sp + T + 1 + tm.weight_latency_per_t * T
        s_vr = self.pop("vru", disp["vru"])
        alat = tm.array_latency + tm.array_latency_per_t * T
        a0 = max(s_vr + 1, w_ready, free["array"])
        s_acc = self.pop("accu", disp["accu"], a0 + alat)
        # vru -> array -> accu is one rate-1 stream; the array may run QD rows ahead.
        a_start = max(a0, s_acc - alat - QD)
        self.array_starts.append(a_start)
        free["vru"] = max(s_vr, a_start - 1) + nr
        free["array"] = a_start + nr
        free["accu"] = s_acc + nr
        for u in ("vru", "array", "accu"):
            self.busy[u] += nr


def _mvout(s_acc: float, s_dst: float, n: int, q: int, c: float) -> tuple[float, float]:
    """accu pushes n rows into ac2sp (depth q) at 1/cycle; dma_st writes one per ``c``."""
    p: list[float] = []
    d: list[float] = []
    for i in range(n):
        pi = s_acc if i == 0 else p[-1] + 1
        if i >= q:
            pi = max(pi, d[i - q])
        p.append(pi)
        di = max(pi + 1, s_dst if i == 0 else d[-1] + c)
        d.append(di)
    return p[-1] + 1, d[-1] + c


def estimate(program: Sequence[Instr], cfg: Config = DEFAULT) -> int:
    """Cycles from ap_start to ap_done predicted by the event model (program must be legal)."""
    return simulate(program, cfg).cycles


@dataclass(frozen=True)
class Comparison:
    """Model vs one published cosim figure."""

    series: str
    shape: str
    measured: int
    model: int

    @property
    def error(self) -> float:
        """Signed relative error of the model (model / measured - 1)."""
        return self.model / self.measured - 1.0


def compare(measurements: Sequence[Measurement] = ALL,
            timing: CycleTiming = CALIBRATED) -> list[Comparison]:
    """Run the model on the shipped GEMM of every measured build and shape."""
    out = []
    for m in measurements:
        cfg = m.config()
        prog = gemm_program(m.M, m.K, m.N, m.relu, cfg)
        out.append(Comparison(m.series, m.shape, m.cycles, simulate(prog, cfg, timing).cycles))
    return out
