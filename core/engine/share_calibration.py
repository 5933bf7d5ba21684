"""Modality offsets that make "the modality of largest score" keep given shares (FastDP decoding, SPEC section 2).

Each synthetic row takes ``argmax_m (score[m, row] + offset[m])``. The offsets solve the semi-discrete
assignment dual: with the other offsets fixed, modality ``m`` is chosen on exactly the rows where
``offset[m] > max_{l != m} (score[l] + offset[l]) - score[m]``, so the ``shares[m]`` quantile of that margin
gives it its share. All offsets are updated together from the best and second-best score of each row, damped by
half, until every share is within ``SHARE_TOLERANCE``: O(modalities x rows) per round.
"""

from __future__ import annotations

import numpy as np

SHARE_TOLERANCE = 0.001
MAX_ROUNDS = 200


def calibrated_offsets(scores: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """Offsets (modalities,) so that the row-wise argmax of ``scores + offsets`` (modalities, rows) picks each
    modality on about ``shares`` of the rows (``shares`` sums to 1; a modality of share 0 gets ``-inf``)."""
    n_modalities, n_rows = scores.shape
    offsets = np.zeros(n_modalities)
    never = shares <= 0
    if n_modalities == 1:
        return offsets
    rows = np.arange(n_rows)
    for _ in range(MAX_ROUNDS):
        shifted = scores + offsets[:, None]
        shifted[never] = -np.inf
        best = np.argmax(shifted, axis=0)
        achieved = np.bincount(best, minlength=n_modalities) / n_rows
        if np.abs(achieved - shares).max() <= SHARE_TOLERANCE:
            break
        top = shifted[best, rows]
        shifted[best, rows] = -np.inf
        second = shifted.max(axis=0)
        needed = offsets.copy()
        for modality in np.flatnonzero(~never):
            rival = np.where(best == modality, second, top)  # the best other modality's shifted score
            needed[modality] = np.quantile(rival - scores[modality], shares[modality])
        offsets = 0.5 * (offsets + needed)
    offsets[never] = -np.inf
    return offsets
