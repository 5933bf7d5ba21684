"""The real holdout of SPEC section 5, first bullet."""

from __future__ import annotations

import numpy as np

HOLDOUT_MIN_ROWS = 500


def split_holdout(n_rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random halves of ``range(n_rows)``: WO (the working half, ``ceil(n / 2)`` rows) and HO.

    Both index arrays are sorted, so each half keeps the file's row order.
    """
    order = rng.permutation(n_rows)
    n_working = (n_rows + 1) // 2
    return np.sort(order[:n_working]), np.sort(order[n_working:])
