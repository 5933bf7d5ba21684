"""Multivariate Hellinger distance (seed 001, core/metrics/multivariate_hellinger.py)."""

import numpy as np
import pandas as pd
import pytest

from core.metrics.multivariate_hellinger import multivariate_hellinger
from tests.support import typed


def test_multivariate_hellinger_is_0_for_identical_and_is_the_weighted_mean():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"x": rng.normal(size=500), "y": rng.normal(size=500), "c": rng.choice(["a", "b"], 500)})
    (working, avatars), kinds = typed(frame, frame.copy())
    assert multivariate_hellinger(working, avatars, kinds).value == 0.0
    shifted = frame.assign(x=frame["x"] + 3.0)
    (working, avatars), kinds = typed(frame, shifted)
    result = multivariate_hellinger(working, avatars, kinds)
    axes = result.breakdown["per_axis"]
    expected = sum(a["weight"] * a["distance"] for a in axes)  # SPEC section 5, revised: sum_j w_j H_j
    assert result.value == pytest.approx(expected) and 0 < result.value < 1
    assert result.breakdown["seed_formula"] == pytest.approx(expected / len(axes))  # the seed's formula line
    assert sum(a["weight"] for a in axes) == pytest.approx(1.0)
    assert len(axes) == 3  # x, y and one axis for the two-modality variable


def test_multivariate_bands():
    frame = pd.DataFrame({"x": np.arange(200.0), "y": np.arange(200.0) % 7})
    (working, avatars), kinds = typed(frame, frame.copy())
    result = multivariate_hellinger(working, avatars, kinds)
    assert (result.band, result.level) == ("almost identical", "good")
