"""Loop-nest mapper: enumerate a workload's mapspace, lower, price, rank, census refusals.

Target-independent: nothing here knows a particular machine. A target (e.g. the
TinyTPU-isa one in :mod:`polyjoule.targets.tinytpu.target`) answers the five questions of
:class:`polyjoule.search.target.Target`.

Public API (stable; the TOSA front end relies on it)::

    from polyjoule.search import search, target
    from polyjoule.library.workloads import get as get_workload

    wl = get_workload("gemm.relu")                      # or any Workload
    problem = search.Problem(wl, {"M": 16, "K": 16, "N": 16})
    tgt = target.get("tinytpu-isa")                     # registered on first use
    result = search.search(problem, tgt, slots=2)
    result.best            # Candidate | None: .label ("N4>K4"), .nest, .program,
                           #   .priced.cost == (makespan, emits), .priced.schedule
    result.candidates      # every encodable nest, sorted by (cost, label)
    result.census          # Census: .counts (first cause), .any_counts, .examples, .rows()
    result.considered      # number of nests enumerated
    result.margin()        # runner-up makespan / best makespan, or None

A nest that cannot be lowered is refused with :class:`polyjoule.search.nest.Refused`,
which carries *every* cause it violates and each cause's kind (``express``: the encoding
cannot say it; ``refuse``: the machine would run it wrongly and only a checker says no).

Other builds: ``polyjoule.targets.tinytpu.target.TinyTPUTarget(Config(MAXDIM=64))`` (the
registered ``tinytpu-isa`` is the published build, T=4, MAXDIM=16). ``search`` raises
:class:`polyjoule.errors.InfeasibleMapping` only when no intrinsic tiles the shape;
a shape whose every nest is refused returns a result with no candidates and a census.

Modules: ``nest`` (Loop, Refused), ``mapspace`` (enumeration), ``target`` (protocol and
registry), ``machine`` (machine as data), ``schedule`` (in-order unit scheduler),
``search`` (search and ranking), ``census`` (three census definitions), ``fit`` (the
makespan-to-cosim error bar), ``gate`` (search + verify a problem set).
"""
