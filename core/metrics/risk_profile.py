"""The risk profile of a table before any generation (SPEC section 6.4): how many people the variables an attacker
could know single out.

On the known variables (numerics and dates binned into deciles for this count, missing values a value of their
own): the share of people unique on them, the share in groups of fewer than ``SMALL_GROUP`` people (those that
k-anonymity with k = 5 would flag), and, greedily, the variables whose removal lowers the unique share most (at
each step the one whose removal leaves the fewest unique people, until none is unique). Each count is one ``np.unique`` over a 64-bit
key per row (mixed radix, wrapping: a collision would merge two groups, at worst understating uniqueness by one
person in billions): n log n per count, v^2 counts for v known variables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.engine.encoding import numeric_values
from core.engine.schema import Kind

SMALL_GROUP = 5
DECILES = 10


@dataclass(frozen=True)
class RiskProfile:
    """Shares (0 to 100) of people unique on the known variables and in groups under ``SMALL_GROUP``; the greedy
    removals, each ``(variable removed, unique share once it and those before are removed)``, while someone is
    unique (none when no one is)."""

    known: tuple[str, ...]
    unique_share: float
    small_group_share: float
    removals: tuple[tuple[str, float], ...]


def risk_profile(frame: pd.DataFrame, kinds: Mapping[str, Kind], known: Sequence[str]) -> RiskProfile:
    """The profile of ``frame`` (typed) on the ``known`` variables."""
    known = tuple(known)
    codes = {name: _codes(frame[name], kinds[name]) for name in known}
    sizes = _group_sizes([codes[name] for name in known], len(frame))
    unique = _unique_share(sizes)
    removals, kept = [], list(known)
    while len(kept) > 1 and (removals[-1][1] if removals else unique) > 0:  # none once no one is unique
        shares = {name: _unique_share(_group_sizes([codes[other] for other in kept if other != name], len(frame)))
                  for name in kept}
        best = min(kept, key=lambda name: (shares[name], kept.index(name)))
        removals.append((best, shares[best]))
        kept.remove(best)
    return RiskProfile(known, unique, float(100 * np.mean(sizes < SMALL_GROUP)) if len(sizes) else 0.0,
                       tuple(removals))


def _codes(column: pd.Series, kind: Kind) -> np.ndarray:
    """Integer codes of a column: its categories, or its decile (numbers, dates); missing a code of its own."""
    if kind is Kind.CATEGORICAL:
        return pd.factorize(column.astype(object), use_na_sentinel=False)[0].astype(np.uint64)
    values = numeric_values(column)
    present = ~np.isnan(values)
    codes = np.full(len(values), DECILES + 1, dtype=np.uint64)
    if present.any():
        edges = np.unique(np.quantile(values[present], np.linspace(0, 1, DECILES + 1)[1:-1]))
        codes[present] = np.searchsorted(edges, values[present], side="right").astype(np.uint64)
    return codes


def _group_sizes(columns: list[np.ndarray], n_rows: int) -> np.ndarray:
    """Per row, how many rows share its values on every one of ``columns`` (all rows alike without a column)."""
    if not columns:
        return np.full(n_rows, n_rows)
    key = np.zeros(n_rows, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for codes in columns:
            key = key * np.uint64(1_000_003) + codes  # wraps modulo 2^64
    _, group, counts = np.unique(key, return_inverse=True, return_counts=True)
    return counts[group]


def _unique_share(sizes: np.ndarray) -> float:
    return float(100 * np.mean(sizes == 1)) if len(sizes) else 0.0
