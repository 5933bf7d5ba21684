"""Correlation Difference Ratio (seed 003, core/metrics/correlation_difference_ratio.py)."""

import numpy as np
import pandas as pd
import pytest

from core.dataset import Kind
from core.metrics.correlation_difference_ratio import correlation_difference_ratio, correlation_direction
from tests.support import typed


def correlated(n, rho, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": rho * x + np.sqrt(1 - rho**2) * rng.normal(size=n), "z": rng.normal(size=n)})


def test_cdr_hand_computed():
    working, holdout, avatars = correlated(500, 0.8, 0), correlated(500, 0.8, 1), correlated(500, 0.5, 2)
    (working, holdout, avatars), kinds = typed(working, holdout, avatars)
    result = correlation_difference_ratio(working, holdout, avatars, kinds)
    r_wo, r_ho, r_wa = (f.corr().to_numpy() for f in (working, holdout, avatars))
    off = ~np.eye(3, dtype=bool)
    reference = np.mean(100 * np.abs(r_wo - r_ho)[off] / 2)
    avatar = np.mean(100 * np.abs(r_wo - r_wa)[off] / 2)
    assert result.breakdown["reference_difference"] == pytest.approx(reference)
    assert result.breakdown["avatar_difference"] == pytest.approx(avatar)
    assert result.value == pytest.approx(min(100, 100 * reference / avatar))
    assert result.breakdown["kappa"] == 1.0


@pytest.mark.parametrize(("n_rows", "kappa"), [(2000, 1.0), (2001, np.sqrt(2001 / 2000)), (8000, 2.0)])
def test_kappa(n_rows, kappa):
    frame = correlated(n_rows, 0.5, 3)
    (working, holdout, avatars), kinds = typed(frame, correlated(100, 0.5, 4), correlated(100, 0.1, 5))
    assert correlation_difference_ratio(working, holdout, avatars, kinds).breakdown["kappa"] == pytest.approx(kappa)


def test_cdr_is_100_when_avatar_correlations_equal_the_originals():
    frame = correlated(300, 0.6, 6)
    (working, holdout, avatars), kinds = typed(frame, correlated(300, 0.6, 7), frame.copy())
    assert correlation_difference_ratio(working, holdout, avatars, kinds).value == 100.0


def test_cdr_not_applicable_with_fewer_than_two_numeric_variables():
    frame = pd.DataFrame({"x": np.arange(10.0), "c": ["a", "b"] * 5})
    (working, holdout, avatars), kinds = typed(frame, frame.copy(), frame.copy())
    result = correlation_difference_ratio(working, holdout, avatars, kinds)
    assert result.value is None and "at least two numeric variables" in result.not_applicable


def test_constant_columns_do_not_give_nan():
    frame = correlated(200, 0.7, 8).assign(constant=1.5)  # not whole: a quantity, not a code
    (working, holdout, avatars), kinds = typed(frame, correlated(200, 0.7, 9).assign(constant=1.5),
                                              correlated(200, 0.2, 10).assign(constant=1.5))
    result = correlation_difference_ratio(working, holdout, avatars, kinds)
    assert np.isfinite(result.value)
    only_constant = pd.DataFrame({"a": [1.5] * 10, "b": [2.5] * 10})
    (working, holdout, avatars), kinds = typed(only_constant, only_constant.copy(), only_constant.copy())
    result = correlation_difference_ratio(working, holdout, avatars, kinds)
    assert result.value is None and "constant" in result.not_applicable


def test_cdr_uses_pairwise_complete_observations():
    frame = correlated(400, 0.7, 11)
    holed = frame.copy()
    holed.loc[:99, "x"] = np.nan
    (working, holdout, avatars), kinds = typed(frame, holed, frame.copy())
    expected = holed.corr().to_numpy()  # pandas' pairwise-complete Pearson
    np.testing.assert_allclose(
        correlation_difference_ratio(working, holdout, avatars, kinds).breakdown["holdout_correlations"], expected
    )
    assert kinds["x"] is Kind.NUMERIC


def test_cdr_says_whether_the_avatars_strengthen_or_weaken_the_correlations():
    working, holdout = correlated(2000, 0.5, 0), correlated(2000, 0.5, 1)
    for rho, word in ((0.8, "strengthen"), (0.2, "weaken")):
        (wo, ho, wa), kinds = typed(working, holdout, correlated(2000, rho, 2))
        result = correlation_difference_ratio(wo, ho, wa, kinds)
        r_wo, r_wa = wo.corr().to_numpy(), wa.corr().to_numpy()
        off = ~np.eye(3, dtype=bool)
        assert result.breakdown["strength_change"] == pytest.approx(np.mean((np.abs(r_wa) - np.abs(r_wo))[off]))
        assert np.sign(result.breakdown["strength_change"]) == np.sign(rho - 0.5)
        assert result.breakdown["largest_change"]["variables"] == ["x", "y"]
        assert result.breakdown["largest_change"]["avatars"] == pytest.approx(r_wa[0, 1])
        assert correlation_direction(result).startswith(f"The avatars {word} the correlations")
    (wo, ho, wa), kinds = typed(working, holdout, working.copy())
    assert correlation_direction(correlation_difference_ratio(wo, ho, wa, kinds)).startswith(
        "The avatars keep the correlations about as strong")


def test_the_two_plain_gaps_are_said_beside_a_capped_ratio():
    """Issue 45, CPS1988 under AvatarFastDP's histogram: ratio 100 (kappa = sqrt(14 077 / 2000) = 2.65 lifts the
    reference), mean gap 0.065 against 0.051 between two real halves; Delta = 100 |r1 - r2| / 2 = 50 x the gap."""
    from core.metrics.correlation_difference_ratio import DEFINITION, correlation_gaps

    capped = DEFINITION.result(100.0, breakdown={"reference_difference": 2.55, "avatar_difference": 3.25,
                                                 "kappa": 2.65})
    assert correlation_gaps(capped) == (
        "A correlation differs from the originals' by 0.065 on average in the avatars, by 0.051 between two halves of "
        "the real data. The ratio counts a gap up to 2.65 times the halves' as natural on a table this large (kappa, "
        "the square root of the rows over 2,000), so its score does not mean the avatars' correlations are as close "
        "as two real halves'.")
    closer = DEFINITION.result(100.0, breakdown={"reference_difference": 2.55, "avatar_difference": 2.0, "kappa": 2.65})
    assert correlation_gaps(closer).endswith("by 0.051 between two halves of the real data.")
