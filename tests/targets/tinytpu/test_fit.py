"""The makespan -> cosim fit and the margin it judges."""

import pytest

from polyjoule.targets.tinytpu import fit


def test_margin_against_the_fit():
    m = fit.margin(517, 642)
    assert round(m.ratio, 2) == 1.24 and m.exceeds_error_bar
    assert m.gap == pytest.approx(1.24 * 125) and "worst residual 34" in m.basis
    assert not fit.margin(512, 509 + 20).exceeds_error_bar
    assert fit.cosim(517) == pytest.approx(769.08)
