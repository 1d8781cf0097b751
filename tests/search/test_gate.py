"""The gate over a problem set: verification, published first objective, verdict."""

from polyjoule.library.workloads import get
from polyjoule.search import gate
from polyjoule.search.search import Problem, search


def test_gate_checks_the_first_objective_against_the_published_one(toy):
    p = Problem(get("gemm"), {"M": 8, "K": 4, "N": 4})
    best = search(p, toy).best.cost[0]
    ok = gate.run_set(gate.ProblemSet((p,), {p.title: best}), toy)
    assert ok.ok and ok.rows[0].verified == len(ok.rows[0].result.candidates)
    assert ok.verdict() == "MAPPER GATE OK: 1/1 problems, every encodable mapping verified"
    bad = gate.run([p], toy, published={p.title: best + 1})
    assert not bad.ok and bad.verdict() == "MAPPER GATE FAILED: 0/1 problems passed"
    assert bad.rows[0].failures == [f"{p.title}: best work {best} != published {best + 1}"]


def test_gate_fails_a_wrong_program(toy_cls):
    class Liar(toy_cls):
        def verify(self, workload, extents, program, seed=0):
            return len(program) < 3

    p = Problem(get("gemm"), {"M": 8, "K": 4, "N": 4})
    res = gate.run([p], Liar())
    assert not res.ok and any("computes a wrong result" in f for f in res.rows[0].failures)
