"""Who is most exposed (SPEC section 6.3, per person): each original's exposure to the nearest-avatar attack, and
the records most exposed with the variables that make them stand out. Sensitive: shown in the session only."""

from __future__ import annotations

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.engine.encoding import numeric_values
from core.i18n import N_, _, percent
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
    its values, the avatars expected before its own, and at most ``STANDING_OUT`` of its values that are rare among
    the originals (:func:`rare_values`), rarest first."""
    hidden, ranks = (evaluation.privacy[name].breakdown.get(key) for name, key in (
        ("hidden_rate", "hidden"), ("local_cloaking", "counts")))
    if hidden is None or ranks is None:
        return None
    order = np.lexsort((ranks, hidden))[:n_records]
    shown = originals.iloc[order].copy()
    shown.insert(0, _("avatars closer than its own"), np.round(ranks[order], 1))
    shown.insert(1, _("stands out on"), rare_values(originals, kinds, order))
    return shown.reset_index(drop=True)


RARE_SHARE = 0.10  # a category at most 10 % of the people hold; a number or a date among the 5 % at either end
RARE_TAIL = RARE_SHARE / 2  # rarity is twice the share on the nearer tail


def rare_values(originals: pd.DataFrame, kinds: dict[str, Kind], rows: np.ndarray) -> list[str]:
    """For each of ``rows``, its values rare among the originals, each with how rare in words ("race: 4.0 % of
    the people", "age: the highest 1.2 %"), at most ``STANDING_OUT``, rarest first; "" when none is. A category's
    rarity is the share of rows holding it; a number's or a date's, twice the share of rows at or beyond it on the
    nearer tail (so both read against ``RARE_SHARE``); a missing value's, the share of missing values."""
    found: list[list[tuple[float, str]]] = [[] for _ in rows]
    for name, kind in kinds.items():
        if name not in originals.columns:
            continue
        rarity, words = _rarity(originals[name], kind, rows)
        for slot, (value, text) in enumerate(zip(rarity, words, strict=True)):
            if value <= RARE_SHARE:
                found[slot].append((value, f"{name}: {text}"))
    return [", ".join(text for _, text in sorted(values)[:STANDING_OUT]) for values in found]


def _rarity(column: pd.Series, kind: Kind, rows: np.ndarray) -> tuple[list[float], list[str]]:
    """How rare the value of each of ``rows`` is (see :func:`rare_values`), and that rarity in words."""
    missing = column.isna().to_numpy()
    share_missing = float(missing.mean())
    if kind is Kind.CATEGORICAL:
        values = column.astype(object)
        shares = values.map(values.value_counts(normalize=True, dropna=False)).to_numpy(
            dtype=float, na_value=share_missing)[rows]
        return shares.tolist(), [_("{share} of the people").format(share=percent(100 * share)) for share in shares]
    values = numeric_values(column)
    present = ~missing
    below, above = np.full(len(values), np.nan), np.full(len(values), np.nan)
    below[present] = pd.Series(values[present]).rank(pct=True, method="max").to_numpy()  # share at or below it
    above[present] = pd.Series(-values[present]).rank(pct=True, method="max").to_numpy()  # share at or above it
    rarity, words = [], []
    for low, high in zip(below[rows], above[rows], strict=True):
        if np.isnan(low):
            rarity.append(share_missing)
            words.append(_("missing for {share} of the people").format(share=percent(100 * share_missing)))
        else:
            rarity.append(2 * float(min(low, high)))
            words.append((_("the lowest {share}") if low <= high else _("the highest {share}")).format(
                share=percent(100 * min(low, high))))
    return rarity, words
