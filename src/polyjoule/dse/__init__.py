"""Design-space exploration: sweeps over sizes and mappings, Pareto fronts, plots, caching.

* :mod:`polyjoule.dse.space`: the design space (size ranges, arrays, tiles, orders);
* :mod:`polyjoule.dse.sweep`: ``run_sweep`` (one derivation per mapping, vectorised evaluation);
* :mod:`polyjoule.analysis.compiled`: generated numpy code for formulas and latencies;
* :mod:`polyjoule.dse.cache`: the SQLite formula cache (never trusted, always checked);
* :mod:`polyjoule.dse.distributed`: derivations and validations on a Dask cluster;
* :mod:`polyjoule.dse.validate`: sampled points against the simulator;
* :mod:`polyjoule.reports.plots`, :mod:`polyjoule.reports.output`: figures, CSV and JSON.

See docs/dse.md.
"""
