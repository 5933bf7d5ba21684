"""AvatarFastDP's gaussian mechanism (SPEC section 4): one noisy multivariate normal."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.engine.fast_dp.noise import (
    BudgetShare,
    NoisyModel,
    repair_positive_definite,
    sample_normal,
    spreads,
    symmetric_laplace,
)

BUDGET = {"mean": 0.3, "covariance": 0.7}


@dataclass(frozen=True)
class GaussianStatistics:
    """Rows, mean and covariance (population) of the clipped coordinates; two parts merge exactly (Chan et al.)."""

    rows: int
    mean: np.ndarray
    covariance: np.ndarray

    def merged(self, other: GaussianStatistics) -> GaussianStatistics:
        rows = self.rows + other.rows
        delta = other.mean - self.mean
        share = other.rows / rows
        covariance = (self.rows * self.covariance + other.rows * other.covariance) / rows \
            + np.outer(delta, delta) * share * (1 - share)
        return GaussianStatistics(rows, self.mean + delta * share, covariance)


class GaussianModel(NoisyModel[GaussianStatistics]):
    """The noisy mean and covariance."""

    @classmethod
    def statistics(cls, clipped: np.ndarray, lower: np.ndarray, upper: np.ndarray, options: dict[str, int]
                   ) -> GaussianStatistics:
        n_dims = clipped.shape[1]
        return GaussianStatistics(len(clipped), clipped.mean(axis=0),
                                  np.cov(clipped, rowvar=False, bias=True).reshape(n_dims, n_dims))

    @classmethod
    def fit_statistics(cls, statistics: GaussianStatistics, lower: np.ndarray, upper: np.ndarray, epsilon: float,
                       rng: np.random.Generator, options: dict[str, int]) -> GaussianModel:
        """Mean and covariance with Laplace noise (budget 30 % / 70 %).

        Mean: L1 sensitivity ``sum_j range_j / n``, the same scale on every coordinate.
        Covariance entry ``(j, l)``, ``j <= l``: sensitivity ``range_j * range_l / n`` (the
        shift of the mean itself, of order ``1 / n^2``, is neglected); the covariance
        budget is split equally over the ``d (d + 1) / 2`` entries. The noisy matrix is
        symmetrised and repaired to positive definite.
        """
        n_rows, mean, covariance = statistics.rows, statistics.mean, statistics.covariance
        n_dims = len(mean)
        ranges = upper - lower
        mean_scale = np.full(n_dims, ranges.sum() / n_rows / (BUDGET["mean"] * epsilon))
        n_entries = n_dims * (n_dims + 1) // 2
        covariance_scale = np.outer(ranges, ranges) / n_rows / (BUDGET["covariance"] * epsilon / n_entries)
        noisy_mean = mean + rng.laplace(0.0, 1.0, n_dims) * mean_scale
        noisy_covariance = covariance + symmetric_laplace(covariance_scale, rng)
        return cls({"mean": mean, "covariance": covariance}, {"mean": mean_scale, "covariance": covariance_scale},
                   {"mean": noisy_mean, "covariance": repair_positive_definite(noisy_covariance, ranges)})

    def sizes(self) -> dict[str, np.ndarray]:
        """A mean's noise against its axis's spread, a covariance's against the product of its two axes'."""
        mean, covariance = spreads(self.exact["covariance"])
        return {"mean": mean, "covariance": covariance}

    @classmethod
    def ledger(cls, epsilon: float, n_dims: int, options: dict[str, int]) -> list[BudgetShare]:
        """30 % on the mean (one Laplace scale for its ``d`` values), 70 % on the ``d (d + 1) / 2`` covariance
        entries, split equally."""
        return [BudgetShare("mean", BUDGET["mean"], BUDGET["mean"] * epsilon, 1, "mean vector"),
                BudgetShare("covariance", BUDGET["covariance"], BUDGET["covariance"] * epsilon,
                            n_dims * (n_dims + 1) // 2, "entry")]

    def sample(self, n_rows: int, rng: np.random.Generator) -> np.ndarray:
        return sample_normal(self.noisy["mean"], self.noisy["covariance"], n_rows, rng)
