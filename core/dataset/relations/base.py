"""What every relation between columns shares (issue 30): the columns' simple types read from the data, the bound
on finding a relation by chance, the tolerance of an equality of decimals."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

CHANCE = math.log(1e-9)  # a relation is taken only if independent columns would show it with odds below 1e-9
MAX_GROUPS = 50  # a categorical source or target has at most this many values


def is_number(values: pd.Series) -> bool:
    """A numeric column (booleans are yes/no, not numbers)."""
    return pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)


def is_date(values: pd.Series) -> bool:
    return pd.api.types.is_datetime64_any_dtype(values)


def decimals(values: np.ndarray) -> int:
    """The decimals a column of numbers is written with (at most 12): a derived number is rounded to them."""
    finite = values[np.isfinite(values)]
    for places in range(13):
        if np.all(np.abs(finite * 10.0**places - np.round(finite * 10.0**places)) < 1e-6):
            return places
    return 12


def tolerance(values: np.ndarray) -> float:
    """How far two equal numbers of the magnitude of ``values`` may differ by float error (a derived number is
    first rounded to its column's decimals, so this is all the room an exact relation has)."""
    finite = np.abs(values[np.isfinite(values)])
    return 1e-9 * max(float(finite.max()) if finite.size else 1.0, 1.0)


def log_chance_of_blocks(counts: np.ndarray) -> float:
    """The log-probability that groups of ``counts`` rows, in random order, fall in contiguous blocks of a sorted
    number: m! prod(c_i!) / n! (the odds of finding intervals by chance)."""
    n = int(counts.sum())
    return math.lgamma(len(counts) + 1) + float(sum(math.lgamma(c + 1) for c in counts)) - math.lgamma(n + 1)


def log_chance_of_determination(group_sizes: np.ndarray, target_shares: np.ndarray) -> float:
    """The log-probability that every group of a source holds one target value when the target is independent of
    it: sum over groups of log(sum_v p_v^g)."""
    shares = target_shares[target_shares > 0]
    sizes = group_sizes[group_sizes > 1]
    if sizes.size == 0:
        return 0.0
    terms = sizes[:, None] * np.log(shares)[None, :]  # log p_v^g, summed in log space (no underflow)
    largest = terms.max(axis=1)
    return float((largest + np.log(np.exp(terms - largest[:, None]).sum(axis=1))).sum())


def same_missing(left: pd.Series, right: pd.Series) -> bool:
    """A derived value is missing exactly where its source is."""
    return bool((left.isna().to_numpy() == right.isna().to_numpy()).all())
