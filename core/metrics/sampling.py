"""Rows drawn once with a fixed seed, where a metric reads a quantity a sample estimates to a stated precision: the
same rows every run, whatever the run's own seed (two runs, or the settings of a sweep, compared on the same rows).

Each use has its own stream: the propensity score's three sides (0, 1, 2), the closest rate's controls (3).
"""

from __future__ import annotations

import numpy as np

PROPENSITY_STREAMS = (0, 1, 2)  # the originals, the avatars, the holdout
CONTROLS_STREAM = 3


def fixed_sample(n_rows: int, size: int, stream: int) -> np.ndarray | None:
    """The sorted row numbers of ``size`` of ``n_rows`` rows drawn without replacement with seed ``(0, stream)``;
    None when ``n_rows <= size`` (every row)."""
    if n_rows <= size:
        return None
    return np.sort(np.random.default_rng([0, stream]).choice(n_rows, size, replace=False))
