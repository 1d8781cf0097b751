"""Localisation: an affine loop nest with broadcasts and reductions -> a uniform PRA.

Every front end describes what it reads as a :class:`~polyjoule.model.nest.Nest` (the C
front end directly, einsum text, registered workloads and TOSA layers through
:func:`~polyjoule.model.nest.workload_nest`). :func:`localize` turns a sequence of nests
(phases that communicate through DRAM) into a :class:`~polyjoule.model.pra.Kernel`, as a
systolic-array designer would (method sheet §2), in five passes, a module each:

1. :mod:`.uniform` refuses what cannot be made uniform, naming the access and the reason:
   a read of an array the nest also writes at a different index (``lu``,
   ``floyd-warshall``), reuse along a direction that is not a loop axis (``A[i+j]``), a
   reduction over coupled loops, a statement around an inner loop that can be empty;
2. :mod:`.geometry` answers where a value enters or leaves the domain (triangular bounds
   with isl: "the first point along ``b``" is where ``p - e_b`` leaves the domain);
3. :mod:`.inputs` reads every value from DRAM once and propagates broadcasts along their
   loops by transports ``x[i] = x[i - e_b]``;
4. :mod:`.body` and :mod:`.chains` compute the body and turn an accumulation
   ``T[f] += E`` over the loops missing from ``f`` into a chain along them; statements
   before the inner loop initialise it (``C *= beta``, ``tmp = 0``);
5. :mod:`.outputs` combines finished chains after the inner loop
   (``y = alpha*tmp + beta*y``) and writes every result to DRAM where it is finished.

Successive pointwise updates of one element are composed first (:mod:`.compose`). A nest
that pass 1 refuses may still be localised by :mod:`.closed` (planned by :mod:`.closing`):
a triangular inner loop closed onto its diagonal, reads of the written array settled by
value-based dataflow (:mod:`.dataflow`: TRISOLV, TRMM, SYMM).

Statements are built as PRA objects; :mod:`polyjoule.frontends.pra_dump` writes them as
YAML for ``polyjoule localize``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from polyjoule.errors import NotUniformError, SpecError
from polyjoule.frontends.localize.body import localize_body
from polyjoule.frontends.localize.chains import localize_chains
from polyjoule.frontends.localize.closed import localize_closed
from polyjoule.frontends.localize.compose import compose_updates
from polyjoule.frontends.localize.outputs import emit_outputs, keep_unwritten, localize_post
from polyjoule.frontends.localize.phase import Phase
from polyjoule.frontends.localize.pivots import is_steps, localize_steps
from polyjoule.frontends.localize.stores import localize_stores, split_stores
from polyjoule.frontends.localize.uniform import check_nest, check_uniform
from polyjoule.model.nest import Nest
from polyjoule.model.pra import PRA, Kernel, check_box


def localize_phase(nest: Nest, name: str | None = None) -> PRA:
    """The uniform PRA of one nest (an array it writes only in part is ``inout``)."""
    return keep_unwritten(_localize_phase(nest, name), nest)


def _localize_phase(nest: Nest, name: str | None = None) -> PRA:
    if is_steps(nest):
        return localize_steps(nest, name or nest.name)
    whole = compose_updates(nest)  # x -= a; x /= b  ->  x = (x - a) / b (see .compose)
    nest, stores = split_stores(whole)  # correlation's corr[i][i] = 1.0 (see .stores)
    ph = Phase(nest)
    try:
        check_nest(nest, ph.geo)
    except NotUniformError:
        closed = localize_closed(whole, name or nest.name)  # trisolv, trmm: see .closed
        if closed is None:
            raise
        return closed
    body = localize_body(ph)
    localize_chains(ph, body.chains)
    finals = localize_post(ph, body)
    emit_outputs(ph, body, finals)
    localize_stores(ph, stores)
    return ph.pra(name or nest.name)


def localize(nests: Sequence[Nest], name: str, description: str = "",
             datasets: Mapping[str, Mapping[str, int]] | None = None) -> Kernel:
    """The kernel of the nests, one phase each, in order."""
    if not nests:
        raise SpecError(f"{name}: no loop nest to localise")
    phases = []
    for k, nest in enumerate(nests):
        multi = len(nests) > 1 and nest.name == name
        phases.append(localize_phase(nest, f"{name}.{k + 1}" if multi else nest.name))
        # (an init placed before a row's first point can leave the box: j = -1 at i = 0)
        check_box(phases[-1], f"{description or name}: {phases[-1].name}")
    sets = {k: dict(v) for k, v in (datasets or {}).items()}
    return Kernel(name, tuple(phases), description, sets)


__all__ = ["check_uniform", "localize", "localize_phase"]
