"""Loop-nest mapper: enumerate a workload's mapspace, lower, price, rank, census refusals.

Target-independent: nothing here knows a particular machine. A target answers the
questions of the :class:`polyjoule.search.target.Target` protocol (structurally: no base
class): ``mapspace`` (its intrinsic tiles and tiling rule, exact or partial tiles),
``lower`` (a program, or :class:`~polyjoule.errors.Refused`), ``price`` (a
:class:`~polyjoule.search.cost.Cost`: named objectives in the target's priority order),
``verify``; optionally ``report``, ``refusals``, ``measured``, ``describe``, ``margin``,
``notes``, ``problem_set``. Targets are registered by the provider modules listed in
``polyjoule.targets.PROVIDERS`` (or entry points of the group ``polyjoule.targets``).

Public API (stable; the TOSA front end relies on it)::

    from polyjoule.search import search, target
    from polyjoule.library.workloads import get as get_workload

    wl = get_workload("gemm.relu")                      # or any Workload
    problem = search.Problem(wl, {"M": 16, "K": 16, "N": 16})
    tgt = target.get(target.default_name())             # or target.get(name)
    result = search.search(problem, tgt, slots=2)
    result.best            # Candidate | None: .label ("N4>K4"), .nest, .program,
                           #   .cost (a Cost: cost[0], cost.names, cost.asdict()),
                           #   .priced.timeline (the target's schedule, if it has one)
    result.candidates      # every encodable nest, sorted by (cost, label)
    result.census          # Census: .counts (first cause), .any_counts, .examples, .rows()
    result.considered      # number of nests enumerated
    result.margin()        # Margin vs the runner-up (the target's error bar), or None

A nest that cannot be lowered is refused with :class:`polyjoule.errors.Refused`, which
carries *every* cause it violates and each cause's :class:`~polyjoule.errors.Kind`
(``express``: the encoding cannot say it; ``refuse``: the machine would run it wrongly
and only a checker says no). ``search`` raises :class:`polyjoule.errors.InfeasibleMapping`
only when the mapspace is empty (no intrinsic tiles the shape); a shape whose every nest
is refused returns a result with no candidates and a census.

Modules: ``nest`` (MapLoop, MapNest, coverage checks), ``mapspace`` (Mapspace,
enumeration), ``cost`` (Cost, Priced, Margin), ``target`` (protocol and registry),
``search`` (search and ranking), ``census`` (the three census definitions), ``gate``
(search + verify a problem set).
"""
