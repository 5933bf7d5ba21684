"""The Hellinger distance and the binning rule of SPEC section 5 (seed 002), shared by both Hellinger metrics."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MIN_BINS, MAX_BINS = 20, 200
BIN_SCALE = 0.75
SKEWNESS_LIMIT = 1.0


def hellinger_distance(p: np.ndarray, q: np.ndarray) -> float:
    """``H(p, q) = sqrt(sum_b (sqrt p_b - sqrt q_b)^2 / 2)`` for two probability vectors on the same bins."""
    return float(np.sqrt(np.sum((np.sqrt(p) - np.sqrt(q)) ** 2) / 2.0))


def skewness(values: np.ndarray) -> float:
    """Fisher-Pearson coefficient, biased: ``m3 / m2^1.5``, what ``scipy.stats.skew`` computes by default."""
    deviations = values - values.mean()
    squared = deviations * deviations  # products, not powers: numpy's ** on floats is many times slower
    second = squared.mean()
    return float(np.dot(squared, deviations) / len(values) / second**1.5) if second > 0 else 0.0


def bin_count(minimum: float, maximum: float) -> int:
    """``min(200, max(20, round(0.75 * (max - min))))``; ``round`` halves to even, as Python's."""
    return int(min(MAX_BINS, max(MIN_BINS, round(BIN_SCALE * (maximum - minimum)))))


@dataclass(frozen=True)
class Grid:
    """Bin edges for one numeric variable and how they were chosen."""

    edges: np.ndarray
    binning: str  # "equal-width" or "equal-count"

    @property
    def n_bins(self) -> int:
        return len(self.edges) - 1


def common_grid(pooled: np.ndarray) -> Grid:
    """One grid over the pooled non-missing values of the samples compared.

    ``n_bins`` from :func:`bin_count`; equal-count (quantile) edges, duplicates removed,
    when ``|skewness| > 1`` (Fisher-Pearson, biased, as ``scipy.stats.skew``), else
    equal-width edges. A constant variable gets one bin.
    """
    minimum, maximum = float(pooled.min()), float(pooled.max())
    if minimum == maximum:
        return Grid(np.array([minimum, maximum]), "equal-width")
    n_bins = bin_count(minimum, maximum)
    if abs(skewness(pooled)) > SKEWNESS_LIMIT:
        return Grid(np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, n_bins + 1))), "equal-count")
    return Grid(np.linspace(minimum, maximum, n_bins + 1), "equal-width")


def binned_distribution(values: np.ndarray, grid: Grid) -> np.ndarray:
    """Shares of ``values`` in the grid's bins (``numpy.histogram`` semantics), then one bin for missing values."""
    missing = np.isnan(values)
    present = values[~missing]
    if grid.edges[0] == grid.edges[-1]:
        counts = np.array([len(present)])
    else:
        counts = np.histogram(present, bins=grid.edges)[0]
    counts = np.append(counts, missing.sum()).astype(float)
    return counts / max(len(values), 1)
