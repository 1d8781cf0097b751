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


def test_exact_key_orders_latencies_past_2_53_as_integers():
    """Latencies past int64 come as Python ints in object arrays: the key orders them as
    the integers do (as floats, 2^63 + 23 and 2^63 + 27 tie or swap)."""
    import numpy as np

    from polyjoule.search.cost import exact_key

    big = [2**63 + 27, 2**63 + 23, 2**63 + 59, 2**63 + 3]
    parts = [np.array(big[:2], dtype=object), np.array(big[2:], dtype=object)]
    key = exact_key(parts)
    assert [big[i] for i in np.argsort(key, kind="stable")] == sorted(big)
    assert len(set(np.asarray(big, float).tolist())) < len(big)  # what a float key sees
    mixed = exact_key([np.array([2**53 + 1, 2**53 + 3]), np.array([2.0**53 + 2])])
    assert np.argsort(mixed).tolist() == [0, 2, 1]  # int64 next to float: still exact
    ints = exact_key([np.array([5, 3]), np.array([4])])
    assert ints.dtype == np.int64 and ints.tolist() == [5, 3, 4]
    floats = exact_key([np.array([0.5]), np.array([0.25])])
    assert floats.tolist() == [0.5, 0.25]
