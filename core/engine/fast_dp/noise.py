"""What the three mechanisms share: symmetric Laplace noise, the positive-definite repair, normal draws."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

import numpy as np

EIGENVALUE_FLOOR = 1e-6
RELATIVE_FLOOR = 1e-9
StatisticsT = TypeVar("StatisticsT")  # what a summable mechanism's statistics are (summed with their ``merged``)


@dataclass(frozen=True)
class BudgetShare:
    """One statistic's share of epsilon (the epsilon ledger): the share and its epsilon, split equally over
    ``parts`` noisy values (``part``: what one is, e.g. "component", "entry", "dimension")."""

    statistic: str
    share: float
    epsilon: float
    parts: int
    part: str

    def to_json(self) -> dict[str, object]:
        return {"statistic": self.statistic, "share": self.share, "epsilon": self.epsilon, "parts": self.parts,
                "part": self.part, "epsilon_per_part": self.epsilon / self.parts}


@dataclass
class NoisyModel(Generic[StatisticsT]):
    """A mechanism's fitted model: the statistics with noise and repair (``noisy``, what is sampled), the exact
    statistics (for tests and diagnostics only) and the Laplace scales. Each mechanism's class adds
    ``sample(n_rows, rng)``, ``ledger(epsilon, n_dims, options)`` (where the budget goes: a :class:`BudgetShare`
    per noisy statistic) and either ``fit(clipped, lower, upper, epsilon, rng, options)`` or, when its statistics
    are sums over the rows (``summable``: the parts of a table, SPEC section 10), ``statistics(clipped, lower,
    upper, options)`` (an object with ``merged``) and ``fit_statistics(statistics, lower, upper, epsilon, rng,
    options)``: the noise is added once, to the statistics of every row."""

    exact: dict[str, np.ndarray]
    noise_scales: dict[str, np.ndarray]
    noisy: dict[str, np.ndarray]
    summable: ClassVar[bool] = True

    @classmethod
    def fit(cls, clipped: np.ndarray, lower: np.ndarray, upper: np.ndarray, epsilon: float,
            rng: np.random.Generator, options: dict[str, int]) -> NoisyModel[StatisticsT]:
        return cls.fit_statistics(cls.statistics(clipped, lower, upper, options), lower, upper, epsilon, rng, options)

    @classmethod
    def statistics(cls, clipped: np.ndarray, lower: np.ndarray, upper: np.ndarray, options: dict[str, int]
                   ) -> StatisticsT:
        raise NotImplementedError

    @classmethod
    def fit_statistics(cls, statistics: StatisticsT, lower: np.ndarray, upper: np.ndarray, epsilon: float,
                       rng: np.random.Generator, options: dict[str, int]) -> NoisyModel[StatisticsT]:
        raise NotImplementedError

    @classmethod
    def ledger(cls, epsilon: float, n_dims: int, options: dict[str, int]) -> list[BudgetShare]:
        raise NotImplementedError

    def sample(self, n_rows: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def sizes(self) -> dict[str, np.ndarray]:
        """Per noisy statistic, the size its noise is measured against (the shapes of ``noise_scales``)."""
        raise NotImplementedError

    def relative_noise(self) -> float:
        """What epsilon buys, in one figure: the median over every noisy value of its Laplace scale (its expected
        absolute noise) divided by the size of what it blurs (:meth:`sizes`: an axis's spread for a mean, the product
        of two spreads for a covariance, the value itself for a weight or a count)."""
        sizes = self.sizes()
        ratios = np.concatenate([np.ravel(self.noise_scales[name] / np.maximum(sizes[name], 1e-12))
                                 for name in self.noise_scales])
        return float(np.median(ratios))


def spreads(covariance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sizes of a mean's and a covariance's entries: each axis's standard deviation, and their products."""
    deviation = np.sqrt(np.maximum(np.diagonal(covariance, axis1=-2, axis2=-1), 0.0))
    return deviation, deviation[..., :, None] * deviation[..., None, :]


def symmetric_laplace(scales: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Laplace noise drawn for the upper triangle (diagonal included) and mirrored."""
    noise = np.triu(rng.laplace(0.0, 1.0, scales.shape) * scales)
    return noise + np.triu(noise, 1).T


def repair_positive_definite(matrix: np.ndarray, ranges: np.ndarray) -> np.ndarray:
    """Symmetrise and floor the eigenvalues at ``EIGENVALUE_FLOOR * mean(range^2)`` (at least a tiny positive, and
    at least ``RELATIVE_FLOOR`` of the largest: with a tiny epsilon the noise is huge, and a floor far below it
    would be lost in rounding, leaving a matrix that is not positive definite)."""
    symmetric = (matrix + matrix.T) / 2
    eigenvalues, eigenvectors = np.linalg.eigh(symmetric)
    floor = max(EIGENVALUE_FLOOR * float(np.mean(ranges**2)), 1e-12, RELATIVE_FLOOR * float(np.abs(eigenvalues).max()))
    repaired = (eigenvectors * np.maximum(eigenvalues, floor)) @ eigenvectors.T
    return (repaired + repaired.T) / 2


def sample_normal(mean: np.ndarray, covariance: np.ndarray, n_rows: int, rng: np.random.Generator) -> np.ndarray:
    """``n_rows`` draws of N(mean, covariance)."""
    factor = np.linalg.cholesky(covariance)
    return mean + rng.standard_normal((n_rows, len(mean))) @ factor.T
