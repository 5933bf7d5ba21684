"""AvatarFastDP's gmm mechanism (SPEC section 4): a Gaussian mixture fitted by EM, then noised."""

from __future__ import annotations

import numpy as np

from core.engine.fast_dp.noise import (
    BudgetShare,
    NoisyModel,
    repair_positive_definite,
    sample_normal,
    spreads,
    symmetric_laplace,
)

BUDGET = {"weights": 0.2, "means": 0.4, "covariances": 0.4}
WEIGHT_FLOOR = 1e-6
FIT_ROWS = 20_000
SCATTER_ROWS = 1 << 16


class MixtureModel(NoisyModel[None]):  # no statistics to sum
    """The noisy weights, means and covariances of a mixture (fitted on the rows given: not summable)."""

    summable = False

    @classmethod
    def fit(cls, clipped: np.ndarray, lower: np.ndarray, upper: np.ndarray, epsilon: float,
            rng: np.random.Generator, options: dict[str, int]) -> MixtureModel:
        """EM fit, then Laplace noise on weights (20 %), means (40 %), covariances (40 %).

        EM (scikit-learn's ``GaussianMixture``) runs on at most ``FIT_ROWS`` random
        rows to place the components; one E-step (:func:`component_shares`, single
        precision) and one M-step over every row then give the weights, means and
        covariances that receive noise.
        Each share of the budget is split equally over the ``K`` components. With
        ``n_c = n * weight_c`` the component's effective number of rows: weight
        sensitivity ``1 / n``; mean sensitivity ``sum_j range_j / n_c``; covariance entry
        sensitivity ``range_j * range_l / n_c``, the component's covariance budget split
        over its ``d (d + 1) / 2`` entries. ``n_c`` comes from the fit itself: a heuristic,
        one more reason this is not end-to-end DP. Weights are clipped at a small
        positive value and renormalised; covariances symmetrised and repaired.
        """
        from sklearn.mixture import GaussianMixture  # here, not at the top: importing scikit-learn takes 0.5 s

        n_rows, n_dims = clipped.shape
        n_components = min(options["gmm_n_components"], n_rows)
        fit_rows = clipped if n_rows <= FIT_ROWS else clipped[rng.choice(n_rows, FIT_ROWS, replace=False)]
        mixture = GaussianMixture(
            n_components=n_components, covariance_type="full", random_state=int(rng.integers(2**31 - 1))
        ).fit(fit_rows)
        responsibilities = component_shares(
            clipped.astype(np.float32), mixture.weights_, mixture.means_, mixture.precisions_cholesky_
        )
        counts = np.maximum(responsibilities.sum(axis=0), 1e-12)
        exact_weights = counts / n_rows
        exact_means = responsibilities.T @ clipped / counts[:, None]
        scatter = np.zeros((n_components, n_dims, n_dims))
        for start in range(0, n_rows, SCATTER_ROWS):  # by blocks of rows: no copy of the whole table per component
            block = slice(start, start + SCATTER_ROWS)
            for c in range(n_components):
                centred = clipped[block] - exact_means[c]
                scatter[c] += (centred.T * responsibilities[block, c]) @ centred
        exact_covariances = scatter / counts[:, None, None] + mixture.reg_covar * np.eye(n_dims)
        ranges = upper - lower
        effective_rows = np.maximum(exact_weights * n_rows, 1.0)
        n_entries = n_dims * (n_dims + 1) // 2
        weight_scale = np.full(n_components, 1.0 / n_rows / (BUDGET["weights"] * epsilon / n_components))
        mean_budget = BUDGET["means"] * epsilon / n_components
        mean_scale = np.repeat((ranges.sum() / effective_rows / mean_budget)[:, None], n_dims, axis=1)
        covariance_budget = BUDGET["covariances"] * epsilon / n_components / n_entries
        covariance_scale = np.outer(ranges, ranges)[None] / effective_rows[:, None, None] / covariance_budget

        weights = np.clip(exact_weights + rng.laplace(0.0, 1.0, n_components) * weight_scale, WEIGHT_FLOOR, None)
        means = exact_means + rng.laplace(0.0, 1.0, mean_scale.shape) * mean_scale
        covariances = np.stack([
            repair_positive_definite(exact_covariances[c] + symmetric_laplace(covariance_scale[c], rng), ranges)
            for c in range(n_components)
        ])
        return cls({"weights": exact_weights, "means": exact_means, "covariances": exact_covariances},
                   {"weights": weight_scale, "means": mean_scale, "covariances": covariance_scale},
                   {"weights": weights / weights.sum(), "means": means, "covariances": covariances})

    def sizes(self) -> dict[str, np.ndarray]:
        """A weight's noise against the weight, a group's mean and covariance against its own spreads."""
        means, covariances = spreads(self.exact["covariances"])
        return {"weights": self.exact["weights"], "means": means, "covariances": covariances}

    @classmethod
    def ledger(cls, epsilon: float, n_dims: int, options: dict[str, int]) -> list[BudgetShare]:
        """20 % on the weights, 40 % on the means, 40 % on the covariances, each split equally over the components
        (a component's covariance share over its ``d (d + 1) / 2`` entries)."""
        components = options["gmm_n_components"]
        return [BudgetShare(name, share, share * epsilon, components, "component") for name, share in BUDGET.items()]

    def sample(self, n_rows: int, rng: np.random.Generator) -> np.ndarray:
        """Counts per component from the noisy weights, normal draws in each, shuffled."""
        counts = rng.multinomial(n_rows, self.noisy["weights"])
        parts = [
            sample_normal(self.noisy["means"][c], self.noisy["covariances"][c], count, rng)
            for c, count in enumerate(counts)
        ]
        points = np.concatenate(parts)
        del parts
        return points[rng.permutation(n_rows)]


def component_shares(
    points: np.ndarray, weights: np.ndarray, means: np.ndarray, precision_choleskys: np.ndarray
) -> np.ndarray:
    """Each point's posterior share of each Gaussian component (the E-step), in the points' precision.

    ``log(w_c) + log N(x | m_c, S_c) = log(w_c) + log det(L_c) - |(x - m_c) L_c|^2 / 2 + const`` with
    ``L_c`` the Cholesky factor of the precision ``S_c^-1``; normalised per row after subtracting its
    maximum. Single precision is plenty for shares, and halves the memory of a million rows.
    """
    dtype = points.dtype
    log_shares = np.empty((len(points), len(weights)), dtype=dtype)
    for c, (weight, mean, factor) in enumerate(zip(weights, means, precision_choleskys, strict=True)):
        projected = (points - mean.astype(dtype)) @ factor.astype(dtype)
        squared_distances = np.einsum("ij,ij->i", projected, projected)
        log_shares[:, c] = np.log(weight) + np.log(np.diag(factor)).sum() - 0.5 * squared_distances
    log_shares -= log_shares.max(axis=1, keepdims=True)
    np.exp(log_shares, out=log_shares)
    log_shares /= log_shares.sum(axis=1, keepdims=True)
    return log_shares
