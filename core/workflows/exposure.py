"""Who is most exposed (SPEC section 6.3, per person): each original's exposure to the nearest-avatar attack, and
the records most exposed with the variables that make them stand out. Sensitive: shown in the session only."""

from __future__ import annotations

import numpy as np
import pandas as pd

from core.engine.encoding import numeric_values
from core.engine.schema import Kind
from core.i18n import N_, _
from core.metrics.evaluation import Evaluation

LEVELS = (N_("own avatar is the nearest"), N_("fewer than 5 avatars closer"), N_("5 or more avatars closer"))
CROWD = 5
STANDING_OUT = 3  # variables named per record


def exposure_levels(evaluation: Evaluation) -> np.ndarray | None:
    """Per original the avatars were made from, the index of its level in :data:`LEVELS`: 0 when its own avatar is
    more likely than not the nearest (ties broken at random), 1 when fewer than ``CROWD`` avatars are expected
    before it, else 2. None when avatars are not paired (no own avatar)."""
    hidden, ranks = (evaluation.privacy[name].breakdown.get(key) for name, key in (
        ("hidden_rate", "hidden"), ("local_cloaking", "counts")))
    if hidden is None or ranks is None:
        return None
    return np.where(hidden < 0.5, 0, np.where(ranks < CROWD, 1, 2))


def most_exposed(originals: pd.DataFrame, kinds: dict[str, Kind], evaluation: Evaluation,
                 n_records: int = 20) -> pd.DataFrame | None:
    """The ``n_records`` originals most exposed (own avatar nearest first, then fewest avatars before it), each with
    its values, the avatars expected before its own, and the ``STANDING_OUT`` variables whose values are rarest in
    the originals (smallest share of the same category; for numbers and dates, nearest a tail)."""
    hidden, ranks = (evaluation.privacy[name].breakdown.get(key) for name, key in (
        ("hidden_rate", "hidden"), ("local_cloaking", "counts")))
    if hidden is None or ranks is None:
        return None
    order = np.lexsort((ranks, hidden))[:n_records]
    rarity = pd.DataFrame({name: _rarity(originals[name], kind) for name, kind in kinds.items()
                           if name in originals.columns}).iloc[order]
    shown = originals.iloc[order].copy()
    shown.insert(0, _("avatars closer than its own"), np.round(ranks[order], 1))
    shown.insert(1, _("stands out on"), [", ".join(row.nsmallest(STANDING_OUT).index) for _, row in rarity.iterrows()])
    return shown.reset_index(drop=True)


def _rarity(column: pd.Series, kind: Kind) -> np.ndarray:
    """Per row, how common its value is: the share of rows with the same category, or twice the distance of its
    rank to the nearer tail (numbers, dates); missing values: their share."""
    if kind is Kind.CATEGORICAL:
        return column.astype(object).map(column.astype(object).value_counts(normalize=True, dropna=False)).to_numpy(
            dtype=float, na_value=column.isna().mean())
    values = numeric_values(column)
    present = ~np.isnan(values)
    rarity = np.full(len(values), np.isnan(values).mean())
    percentile = pd.Series(values[present]).rank(pct=True).to_numpy()
    rarity[present] = 2 * np.minimum(percentile, 1 - percentile + 1 / max(present.sum(), 1))
    return rarity
