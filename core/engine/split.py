"""The real holdout of SPEC section 5, first bullet."""

from __future__ import annotations

from enum import StrEnum

import numpy as np

from core.engine.parameters import HOLDOUT_MIN_ROWS


class Holdout(StrEnum):
    """What the signal metrics compare the avatars with (SPEC section 5); a string, the JSON's word."""

    REAL = "real"  # a random half set aside before the synthesis, never used to make the avatars
    GIVEN = "given"  # a holdout file kept apart, given to ``evaluate --holdout``
    APPROXIMATE = "approximate"  # none: half of the originals drawn at random when scoring
    NONE = "none"  # the engine's word when it set no half aside (the metrics then draw an approximate one)


def working_rows(n_rows: int, holdout: bool = True, min_rows: int = HOLDOUT_MIN_ROWS) -> int:
    """The rows avatarized (WO): the working half, ``ceil(n / 2)``, with a holdout on a table of at least
    ``min_rows`` rows; else every row. The one place the half is computed (the pages, the batches, the engine)."""
    return (n_rows + 1) // 2 if holdout and n_rows >= min_rows else n_rows


def split_holdout(n_rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random halves of ``range(n_rows)``: WO (the working half, ``ceil(n / 2)`` rows) and HO.

    Both index arrays are sorted, so each half keeps the file's row order.
    """
    order = rng.permutation(n_rows)
    n_working = working_rows(n_rows, min_rows=0)
    return np.sort(order[:n_working]), np.sort(order[n_working:])
