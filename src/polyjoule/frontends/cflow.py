"""Exact dataflow and integer sets for the reordering of elimination nests (islpy).

The front end's one module that imports islpy (localisation's emptiness questions go
through :mod:`polyjoule.analysis._isl`; isl's dataflow analysis has no counterpart there).

:mod:`.creorder` asks, for a C nest and a candidate schedule, which write instance each
read instance sees (isl's ``compute_flow``: the last write before the read under the
schedule); two schedules compute the same values when they give every read the same source.
:mod:`.localize.pivots` asks for set algebra on regions of the ``(k, i, j)`` step space
(unions, shifts, sweeps along an axis) and for the regions back as conjunctions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import islpy as isl

from polyjoule.errors import NotUniformError
from polyjoule.model.affine import Affine, Constraint

Conj = list[Constraint]
ISet = isl.Set  # the sets :mod:`.localize.pivots` passes around


def _conj_text(conj: Sequence[Constraint]) -> str:
    return " and ".join(c.isl() for c in conj) or "true"


class FlowSpace:
    """Integer sets over ``dims`` with parameters ``params`` (each at least 1)."""

    def __init__(self, params: Sequence[str], dims: Sequence[str]):
        self.params, self.dims = tuple(params), tuple(dims)
        self._head = f"[{', '.join(self.params)}] -> {{ [{', '.join(self.dims)}] : "
        self._ctx = " and ".join(f"{p} >= 1" for p in self.params) or "true"

    def set(self, conj: Sequence[Constraint]) -> isl.Set:
        """The conjunction as a set."""
        return isl.Set(f"{self._head}{self._ctx} and {_conj_text(conj)} }}")

    def sample(self, s: isl.Set) -> dict[str, int]:
        """One point of the non-empty set ``s``: its parameters' and dims' values."""
        pt = s.sample_point()
        out = {n: int(str(pt.get_coordinate_val(isl.dim_type.param, k)))
               for k, n in enumerate(self.params)}
        out |= {n: int(str(pt.get_coordinate_val(isl.dim_type.set, k)))
                for k, n in enumerate(self.dims)}
        return out

    def nothing(self) -> isl.Set:
        return isl.Set(f"{self._head}false }}")

    def empty(self, conj: Sequence[Constraint]) -> bool:
        return bool(self.set(conj).is_empty())

    def shift(self, s: isl.Set, d: str, by: int) -> isl.Set:
        """The points ``p + by * e_d`` for ``p`` in ``s``."""
        return self._moved(s, d, f"= {{n}} + {by}")

    def sweep_back(self, s: isl.Set, d: str) -> isl.Set:
        """The points ``p - t * e_d`` (``t >= 0``) for ``p`` in ``s``: the way a value
        travelling along ``d`` takes to reach ``s``."""
        return self._moved(s, d, "<= {n}")

    def _moved(self, s: isl.Set, d: str, along: str) -> isl.Set:
        """``s`` under the map that relates dim ``d`` as ``along`` says (``{n}`` is its
        name) and keeps every other dim."""
        out = [f"o{k}" for k in range(len(self.dims))]
        rel = " and ".join(f"{o} {along.format(n=n) if n == d else f'= {n}'}"
                           for o, n in zip(out, self.dims, strict=True))
        move = isl.Map(f"[{', '.join(self.params)}] -> {{ [{', '.join(self.dims)}] -> "
                       f"[{', '.join(out)}] : {rel} }}")
        return s.apply(move)

    def pieces(self, s: isl.Set) -> list[Conj]:
        """Disjoint conjunctions covering ``s`` (redundant constraints dropped)."""
        out: list[Conj] = []
        for b in s.coalesce().make_disjoint().get_basic_sets():
            if b.is_empty():
                continue
            if b.dim(isl.dim_type.div):
                raise NotUniformError(f"region {b} needs an integer division")
            out.append(self._conj(b.remove_redundancies()))
        return out

    def projected(self, s: isl.Set, keep: int) -> list[Conj]:
        """``s`` projected onto its leading ``keep`` dims, as conjunctions over them."""
        proj = s.project_out(isl.dim_type.set, keep, len(self.dims) - keep)
        return FlowSpace(self.params, self.dims[:keep]).pieces(proj)

    def _conj(self, b: isl.BasicSet) -> Conj:
        names = [*self.params, *self.dims]
        conj: Conj = []
        for c in b.get_constraints():
            vals = [c.get_coefficient_val(isl.dim_type.param, k) for k in range(len(self.params))]
            vals += [c.get_coefficient_val(isl.dim_type.set, k) for k in range(len(self.dims))]
            coeffs = {n: int(v.to_python()) for n, v in zip(names, vals, strict=True)}
            expr = Affine.of(coeffs, int(c.get_constant_val().to_python()))
            if expr.names() <= set(self.params) and not c.is_equality():
                continue  # a condition on the parameters alone (N >= 1)
            conj.append(Constraint(expr, bool(c.is_equality())))
        return conj


@dataclass(frozen=True)
class Instance:
    """One C statement as the polyhedral model sees it: its instances (``dims`` within
    ``domain``), what it writes and what it reads."""

    name: str
    dims: tuple[str, ...]
    domain: tuple[Constraint, ...]
    write: tuple[str, tuple[Affine, ...]]
    reads: tuple[tuple[str, tuple[Affine, ...]], ...]


def _access(params: str, name: str, dims: Sequence[str], domain: str,
            acc: tuple[str, tuple[Affine, ...]]) -> str:
    idx = ", ".join(x.isl() for x in acc[1])
    return f"{params} -> {{ {name}[{', '.join(dims)}] -> {acc[0]}[{idx}] : {domain} }}"


def _union(texts: list[str]) -> isl.UnionMap:
    out = isl.UnionMap(texts[0])
    for t in texts[1:]:
        out = out.union(isl.UnionMap(t))
    return out


def flow(params: Sequence[str], insts: Sequence[Instance],
         schedule: dict[str, list[Affine]]) -> tuple[isl.UnionMap, isl.UnionMap]:
    """(source -> read, reads with no source) under ``schedule`` (statement -> its time
    as affine functions of its dims). Read ``r`` of statement ``S`` is named ``S_r<r>``."""
    p = f"[{', '.join(params)}]"
    ctx = " and ".join(f"{x} >= 1" for x in params) or "true"
    writes, reads, times = [], [], []
    for s in insts:
        dom = f"{ctx} and {_conj_text(s.domain)}"
        writes.append(_access(p, s.name, s.dims, dom, s.write))
        t = ", ".join(x.isl() for x in schedule[s.name])
        names = [s.name, *(f"{s.name}_r{k}" for k in range(len(s.reads)))]
        times += [f"{p} -> {{ {n}[{', '.join(s.dims)}] -> [{t}] : {dom} }}" for n in names]
        reads += [_access(p, f"{s.name}_r{k}", s.dims, dom, r) for k, r in enumerate(s.reads)]
    info = isl.UnionAccessInfo.from_sink(_union(reads))
    info = info.set_must_source(_union(writes)).set_schedule_map(_union(times))
    result = info.compute_flow()
    return result.get_must_dependence(), result.get_must_no_source()


def same_flow(a: tuple[isl.UnionMap, isl.UnionMap], b: tuple[isl.UnionMap, isl.UnionMap]) -> bool:
    """Do two schedules give every read the same source (or none)?"""
    return bool(a[0].is_equal(b[0]) and a[1].is_equal(b[1]))


def injective(params: Sequence[str], insts: Sequence[Instance],
              place: dict[str, list[Affine]]) -> bool:
    """Does ``place`` put no two statement instances on one point?"""
    p = f"[{', '.join(params)}]"
    ctx = " and ".join(f"{x} >= 1" for x in params) or "true"
    texts = [f"{p} -> {{ {s.name}[{', '.join(s.dims)}] -> "
             f"[{', '.join(x.isl() for x in place[s.name])}] : {ctx} and "
             f"{_conj_text(s.domain)} }}" for s in insts]
    return bool(_union(texts).is_injective())


def source_steps(dep: isl.UnionMap, read: str, src: str, place: dict[str, list[Affine]],
                 insts: dict[str, Instance], params: Sequence[str]) -> set[str]:
    """How the sources ``src`` of read ``read`` lie in steps against the read: a subset of
    {"same", "earlier", "later"} (the first coordinate of ``place``)."""
    p = f"[{', '.join(params)}]"
    rs, ss = insts[read.rsplit("_r", 1)[0]], insts[src]
    out: set[str] = set()
    pairs = dep.extract_map(isl.Map(f"{p} -> {{ {src}[{', '.join(ss.dims)}] -> "
                                    f"{read}[{', '.join(rs.dims)}] }}").get_space())
    if pairs.is_empty():
        return out
    a, b = place[src][0], place[rs.name][0]
    sd = [f"s_{d}" for d in ss.dims]
    ren_a = a.substitute({d: Affine.of({n: 1}) for d, n in zip(ss.dims, sd, strict=True)})
    for how, rel in (("same", "="), ("earlier", "<"), ("later", ">")):
        test = isl.Map(f"{p} -> {{ {src}[{', '.join(sd)}] -> {read}[{', '.join(rs.dims)}] : "
                       f"{ren_a.isl()} {rel} {b.isl()} }}")
        if not pairs.intersect(test).is_empty():
            out.add(how)
    return out


def covers(params: Sequence[str], shape: Sequence[Affine],
           writes: Sequence[tuple[Sequence[str], Sequence[Constraint], Sequence[Affine]]]) -> bool:
    """Do the writes (each: loop dims, their domain, the subscripts) reach every element of
    the box ``0 .. shape - 1``, for every parameter value >= 1?"""
    ps = ", ".join(params)
    out = [f"o{k}" for k in range(len(shape))]
    ctx = " and ".join([f"{p} >= 1" for p in params] or ["true"])
    box = " and ".join(f"0 <= {o} <= {n.isl()} - 1" for o, n in zip(out, shape, strict=True))
    left = isl.Set(f"[{ps}] -> {{ [{', '.join(out)}] : {ctx} and {box} }}")
    for dims, domain, index in writes:
        image = isl.Map(f"[{ps}] -> {{ [{', '.join(dims)}] -> [{', '.join(x.isl() for x in index)}]"
                        f" : {ctx} and {_conj_text(domain)} }}").range()
        left = left.subtract(image)
    return bool(left.is_empty())



def same_step_reads(dep: isl.UnionMap, read: str, src: str, place: dict[str, list[Affine]],
                    insts: dict[str, Instance], params: Sequence[str],
                    dims: Sequence[str]) -> isl.Set:
    """The instances of read ``read``, placed in the step space ``dims``, whose source is an
    instance of ``src`` in the same step (the first coordinate of ``place``)."""
    p = f"[{', '.join(params)}]"
    rs, ss = insts[read.rsplit("_r", 1)[0]], insts[src]
    sd = [f"s_{d}" for d in ss.dims]
    a = place[src][0].substitute({d: Affine.of({n: 1}) for d, n in zip(ss.dims, sd, strict=True)})
    b = place[rs.name][0]
    same = isl.Map(f"{p} -> {{ {src}[{', '.join(sd)}] -> {read}[{', '.join(rs.dims)}] : "
                   f"{a.isl()} = {b.isl()} }}")
    pairs = dep.extract_map(same.get_space()).intersect(same)
    to_step = isl.Map(f"{p} -> {{ {read}[{', '.join(rs.dims)}] -> "
                      f"[{', '.join(x.isl() for x in place[rs.name])}] }}")
    out = pairs.range().apply(to_step)
    return out.set_tuple_name(None) if out.get_tuple_name() else out


def step_set(params: Sequence[str], dims: Sequence[str], conj: Sequence[Constraint]) -> isl.Set:
    """The conjunction as a set of the step space (parameters at least 1)."""
    return FlowSpace(params, dims).set(conj)
