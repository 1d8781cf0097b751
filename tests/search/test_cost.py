"""Cost: named objectives in priority order, compared lexicographically."""

import pickle

import pytest

from polyjoule.search.cost import Cost


def test_cost_orders_by_priority_and_reads_by_name():
    a, b, c = (Cost(("makespan", "emits"), v) for v in ((517, 32), (517, 40), (509, 99)))
    assert sorted([b, a, c]) == [c, a, b]  # the first objective decides; the second ties
    assert a == (517, 32) and a[0] == a["makespan"] == a.makespan == 517
    assert a.asdict() == {"makespan": 517, "emits": 32}
    assert str(a) == "(517, 32)" and repr(a) == "Cost(makespan=517, emits=32)"
    assert list(a) == [517, 32]
    with pytest.raises(AttributeError, match="no objective 'energy'"):
        _ = a.energy
    back = pickle.loads(pickle.dumps(a))
    assert back == a and back.names == a.names


def test_cost_names_match_values():
    with pytest.raises(AssertionError):
        Cost(("makespan",), (1, 2))
