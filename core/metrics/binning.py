"""The Hellinger distance and the binning rule of SPEC section 5 (seed 002), shared by both Hellinger metrics."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.i18n import N_

MIN_BINS, MAX_BINS = 20, 200
BIN_SCALE = 0.75
SKEWNESS_LIMIT = 1.0


def hellinger_distance(p: np.ndarray, q: np.ndarray) -> float:
    """``H(p, q) = sqrt(sum_b (sqrt p_b - sqrt q_b)^2 / 2)`` for two probability vectors on the same bins."""
    return float(np.sqrt(np.sum((np.sqrt(p) - np.sqrt(q)) ** 2) / 2.0))


def skewness(values: np.ndarray) -> float:
    """Fisher-Pearson coefficient, biased: ``m3 / m2^1.5``, what ``scipy.stats.skew`` computes by default.

    The deviations are divided by the largest of them first (the coefficient does not
    change), so that tiny or huge values neither underflow nor overflow.
    """
    deviations = values - values.mean()
    largest = np.abs(deviations).max() if len(deviations) else 0.0
    if not largest > 0:
        return 0.0
    deviations /= largest
    squared = deviations * deviations  # products, not powers: numpy's ** on floats is many times slower
    return float(np.dot(squared, deviations) / len(values) / squared.mean() ** 1.5)


def bin_count(minimum: float, maximum: float) -> int:
    """``min(200, max(20, round(0.75 * (max - min))))``; ``round`` halves to even, as Python's."""
    return int(min(MAX_BINS, max(MIN_BINS, round(BIN_SCALE * (maximum - minimum)))))


@dataclass(frozen=True)
class Grid:
    """Bin edges for one numeric variable and how they were chosen."""

    edges: np.ndarray
    binning: str  # "equal-width" or "equal-count" (marked: shown translated, with _())

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
        return Grid(np.array([minimum, maximum]), N_("equal-width"))
    n_bins = bin_count(minimum, maximum)
    if abs(skewness(pooled)) > SKEWNESS_LIMIT:
        return Grid(np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, n_bins + 1))), N_("equal-count"))
    return Grid(np.linspace(minimum, maximum, n_bins + 1), N_("equal-width"))


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


@dataclass(frozen=True)
class SortedColumns:
    """A complete sample's columns, each sorted, with the moments that pooling two samples needs."""

    values: np.ndarray  # (columns, rows): row j is column j sorted
    mean: np.ndarray
    squares: np.ndarray  # sum of squared deviations from the mean, per column
    cubes: np.ndarray  # sum of cubed deviations from the mean, per column

    @classmethod
    def of(cls, sample: np.ndarray) -> SortedColumns:
        """From a (rows, columns) sample."""
        mean = sample.mean(axis=0)
        deviations = sample - mean
        squared = deviations * deviations
        return cls(np.sort(sample.T, axis=1), mean, squared.sum(axis=0), np.einsum("ij,ij->j", squared, deviations))

    @property
    def n_rows(self) -> int:
        return self.values.shape[1]


def pooled_skewness(first: SortedColumns, second: SortedColumns) -> np.ndarray:
    """The skewness of each column of the two samples pooled, from their moments (Pebay's pairwise update).

    With ``d`` the difference of the means and ``n = n1 + n2``:
    ``M2 = M2_1 + M2_2 + d^2 n1 n2 / n``,
    ``M3 = M3_1 + M3_2 + d^3 n1 n2 (n1 - n2) / n^2 + 3 d (n1 M2_2 - n2 M2_1) / n``;
    skewness ``(M3 / n) / (M2 / n)^1.5``, 0 for a constant column.
    """
    n1, n2 = first.n_rows, second.n_rows
    n = n1 + n2
    delta = second.mean - first.mean
    squares = first.squares + second.squares + delta**2 * n1 * n2 / n
    cubes = (first.cubes + second.cubes + delta**3 * n1 * n2 * (n1 - n2) / n**2
             + 3 * delta * (n1 * second.squares - n2 * first.squares) / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(squares > 0, (cubes / n) / (squares / n) ** 1.5, 0.0)


def column_distances(first: SortedColumns, second: SortedColumns) -> np.ndarray:
    """``H`` between the columns of two complete samples, each column on its own :func:`common_grid`.

    The rule of :func:`common_grid` and the counts of :func:`binned_distribution`
    (``numpy.histogram``'s, last bin closed), for all columns at once: the pooled
    skewness from the two samples' moments, the quantiles from the two sorted samples
    merged. The multivariate Hellinger distance bins hundreds of axes per call, and a
    sweep compares the same originals with many avatar sets.
    """
    minima = np.minimum(first.values[:, 0], second.values[:, 0]).tolist()
    maxima = np.maximum(first.values[:, -1], second.values[:, -1]).tolist()
    skewed = np.abs(pooled_skewness(first, second)) > SKEWNESS_LIMIT
    distances = np.zeros(len(minima))
    for column, (low, high) in enumerate(zip(minima, maxima, strict=True)):
        if low == high:
            continue  # one bin holding both samples whole: distance 0
        n_bins = bin_count(low, high)
        if skewed[column]:
            merged = np.sort(np.concatenate([first.values[column], second.values[column]]), kind="stable")  # two runs
            edges = np.unique(_sorted_quantiles(merged, np.linspace(0.0, 1.0, n_bins + 1)))
        else:
            edges = np.linspace(low, high, n_bins + 1)
        p = _histogram_of_sorted(first.values[column], edges) / first.n_rows
        q = _histogram_of_sorted(second.values[column], edges) / second.n_rows
        distances[column] = hellinger_distance(p, q)
    return distances


def _histogram_of_sorted(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """``numpy.histogram(values, edges)[0]`` for sorted ``values`` within the edges: its searchsorted rule,
    the last edge (the pooled maximum) closed."""
    below = values.searchsorted(edges, "left")
    below[-1] = len(values)
    return np.diff(below)


def _sorted_quantiles(values: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """``numpy.quantile(values, probabilities)`` (its default "linear" method) for sorted ``values``."""
    positions = (len(values) - 1) * probabilities
    below = np.floor(positions).astype(np.intp)
    above = np.minimum(below + 1, len(values) - 1)
    fraction = positions - below
    low, high = values[below], values[above]
    step = high - low
    return np.where(fraction >= 0.5, high - step * (1 - fraction), low + step * fraction)
