"""AvatarFastDP's histogram mechanism (SPEC section 4): independent noisy histograms per latent dimension."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.engine.fast_dp.noise import BudgetShare, NoisyModel


@dataclass(frozen=True)
class HistogramCounts:
    """Each dimension's counts in its fixed-width bins over the bounds (d, bins); two parts add up."""

    counts: np.ndarray

    def merged(self, other: HistogramCounts) -> HistogramCounts:
        return HistogramCounts(self.counts + other.counts)


class HistogramModel(NoisyModel[HistogramCounts]):
    """The noisy bin probabilities per dimension, and their edges."""

    @classmethod
    def statistics(cls, clipped: np.ndarray, lower: np.ndarray, upper: np.ndarray, options: dict[str, int]
                   ) -> HistogramCounts:
        edges = _edges(lower, upper, options)
        return HistogramCounts(np.stack([np.histogram(clipped[:, j], bins=edges[j])[0]
                                         for j in range(clipped.shape[1])]).astype(float))

    @classmethod
    def fit_statistics(cls, statistics: HistogramCounts, lower: np.ndarray, upper: np.ndarray, epsilon: float,
                       rng: np.random.Generator, options: dict[str, int]) -> HistogramModel:
        """Independent per-dimension histograms of fixed-width bins over the bounds.

        The budget is split equally over the ``d`` dimensions. Replacing one row moves
        one count down and one up: L1 sensitivity 2 per dimension, so each count gets
        Laplace noise of scale ``2 d / epsilon``. Counts are clipped at 0 and normalised
        (uniform when all are 0).
        """
        counts, n_bins = statistics.counts, options["histogram_n_bins"]
        scale = np.full(counts.shape, 2.0 * len(counts) / epsilon)
        noisy = np.clip(counts + rng.laplace(0.0, 1.0, counts.shape) * scale, 0.0, None)
        totals = noisy.sum(axis=1, keepdims=True)
        probabilities = np.where(totals > 0, noisy / np.where(totals > 0, totals, 1.0), 1.0 / n_bins)
        return cls({"counts": counts}, {"counts": scale},
                   {"counts": noisy, "probabilities": probabilities, "edges": _edges(lower, upper, options)})

    def sizes(self) -> dict[str, np.ndarray]:
        """A count's noise against the mean count of a bin (the rows over the bins)."""
        counts = self.exact["counts"]
        return {"counts": np.broadcast_to(counts.sum(axis=1, keepdims=True) / counts.shape[1], counts.shape)}

    @classmethod
    def ledger(cls, epsilon: float, n_dims: int, options: dict[str, int]) -> list[BudgetShare]:
        """The whole budget on the bin counts, split equally over the ``d`` dimensions."""
        return [BudgetShare("counts", 1.0, epsilon, n_dims, "dimension")]

    def sample(self, n_rows: int, rng: np.random.Generator) -> np.ndarray:
        """A bin per dimension from its probabilities, then a point uniformly inside it."""
        probabilities, edges = self.noisy["probabilities"], self.noisy["edges"]
        n_dims, n_bins = probabilities.shape
        cumulative = np.cumsum(probabilities, axis=1)
        targets = rng.random((n_rows, n_dims))
        targets *= cumulative[:, -1]
        bins = np.empty((n_rows, n_dims), dtype=np.intp)
        for j in range(n_dims):
            np.minimum(np.searchsorted(cumulative[j], targets[:, j], side="right"), n_bins - 1, out=bins[:, j])
        del targets
        points = rng.random((n_rows, n_dims))  # the position within the bin
        points *= edges[:, 1] - edges[:, 0]
        for j in range(n_dims):
            points[:, j] += edges[j, bins[:, j]]
        return points


def _edges(lower: np.ndarray, upper: np.ndarray, options: dict[str, int]) -> np.ndarray:
    """The bins' edges per dimension (d, bins + 1)."""
    return np.linspace(lower, upper, options["histogram_n_bins"] + 1, axis=1)
