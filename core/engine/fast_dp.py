"""AvatarFastDP: a noisy distribution fitted in the latent space, then sampled (SPEC section 4, seed 004).

It uses differential-privacy mechanisms but is **not end-to-end differentially private**:
the projection, the clipping bounds (data percentiles) and the missing-value handling
are computed on the raw data without noise.

Neighbouring datasets differ by *replacing* one row. Data are clipped per latent
dimension ``j`` to ``[lower_j, upper_j]`` (the ``bounds_percentile`` percentile and its
mirror) before any statistic, so ``range_j = upper_j - lower_j`` bounds one row's
influence. Each noisy statistic gets Laplace noise of scale ``sensitivity / budget``.
"""

from __future__ import annotations

import numpy as np

from core.errors import InputError
from core.validation import check_choice, check_positive_number, check_whole_number

MECHANISMS = ("gaussian", "gmm", "histogram")
GAUSSIAN_BUDGET = {"mean": 0.3, "covariance": 0.7}
GMM_BUDGET = {"weights": 0.2, "means": 0.4, "covariances": 0.4}
EIGENVALUE_FLOOR = 1e-6
WEIGHT_FLOOR = 1e-6
GMM_FIT_ROWS = 20_000
GMM_SCATTER_ROWS = 1 << 16


class FastDPSynthesizer:
    """Fit a noisy latent distribution and sample from it.

    Parameters
    ----------
    epsilon : float > 0
        Total privacy budget, shared among the mechanism's statistics.
    mechanism : {"gaussian", "gmm", "histogram"}
    gmm_n_components : int >= 1
    histogram_n_bins : int >= 2
    bounds_percentile : float in (0, 50)

    Attributes
    ----------
    lower_, upper_ : clipping bounds per latent dimension.
    noise_scales_ : dict of Laplace scales, per statistic (same shapes as the statistics).
    exact_ : dict of the statistics before noise (kept for tests and diagnostics only).
    noisy_ : dict of the statistics after noise and repair: the fitted model.
    """

    def __init__(
        self,
        epsilon: float,
        mechanism: str = "gaussian",
        gmm_n_components: int = 5,
        histogram_n_bins: int = 10,
        bounds_percentile: float = 5.0,
    ):
        self.epsilon = epsilon
        self.mechanism = mechanism
        self.gmm_n_components = gmm_n_components
        self.histogram_n_bins = histogram_n_bins
        self.bounds_percentile = bounds_percentile

    def validate(self) -> None:
        """Check the parameters, raising an :class:`InputError` that names the first wrong one."""
        self.epsilon_ = check_positive_number(
            "fast_dp_epsilon", self.epsilon, hint="It is the privacy budget, for example 1.0."
        )
        check_choice("mechanism", self.mechanism, MECHANISMS)
        self.gmm_n_components_ = check_whole_number("gmm_n_components", self.gmm_n_components, minimum=1)
        self.histogram_n_bins_ = check_whole_number("histogram_n_bins", self.histogram_n_bins, minimum=2)
        percentile = self.bounds_percentile
        if isinstance(percentile, bool) or not isinstance(percentile, (int, float)) or not 0 < percentile < 50:
            raise InputError(f"bounds_percentile must be a number between 0 and 50 (both excluded), got {percentile!r}.")

    def fit(self, coordinates: np.ndarray, rng: np.random.Generator) -> FastDPSynthesizer:
        """Clip ``coordinates`` (n, d) to the percentile bounds and fit the noisy model."""
        self.validate()
        columns = coordinates.T  # one column copied at a time by the percentiles, not the whole table
        self.lower_ = np.array([np.percentile(column, self.bounds_percentile) for column in columns])
        self.upper_ = np.array([np.percentile(column, 100 - self.bounds_percentile) for column in columns])
        clipped = np.clip(coordinates, self.lower_, self.upper_)
        fit = {"gaussian": self._fit_gaussian, "gmm": self._fit_gmm, "histogram": self._fit_histogram}[self.mechanism]
        fit(clipped, rng)
        return self

    def _fit_gaussian(self, clipped: np.ndarray, rng: np.random.Generator) -> None:
        """Mean and covariance with Laplace noise (budget 30 % / 70 %).

        Mean: L1 sensitivity ``sum_j range_j / n``, the same scale on every coordinate.
        Covariance entry ``(j, l)``, ``j <= l``: sensitivity ``range_j * range_l / n`` (the
        shift of the mean itself, of order ``1 / n^2``, is neglected); the covariance
        budget is split equally over the ``d (d + 1) / 2`` entries. The noisy matrix is
        symmetrised and repaired to positive definite.
        """
        n_rows, n_dims = clipped.shape
        ranges = self.upper_ - self.lower_
        mean = clipped.mean(axis=0)
        covariance = np.cov(clipped, rowvar=False, bias=True).reshape(n_dims, n_dims)
        mean_scale = np.full(n_dims, ranges.sum() / n_rows / (GAUSSIAN_BUDGET["mean"] * self.epsilon_))
        n_entries = n_dims * (n_dims + 1) // 2
        covariance_scale = np.outer(ranges, ranges) / n_rows / (GAUSSIAN_BUDGET["covariance"] * self.epsilon_ / n_entries)
        noisy_mean = mean + rng.laplace(0.0, 1.0, n_dims) * mean_scale
        noisy_covariance = covariance + _symmetric_laplace(covariance_scale, rng)
        self.exact_ = {"mean": mean, "covariance": covariance}
        self.noise_scales_ = {"mean": mean_scale, "covariance": covariance_scale}
        self.noisy_ = {"mean": noisy_mean, "covariance": repair_positive_definite(noisy_covariance, ranges)}

    def _fit_gmm(self, clipped: np.ndarray, rng: np.random.Generator) -> None:
        """EM fit, then Laplace noise on weights (20 %), means (40 %), covariances (40 %).

        EM (scikit-learn's ``GaussianMixture``) runs on at most ``GMM_FIT_ROWS`` random
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
        n_components = min(self.gmm_n_components_, n_rows)
        fit_rows = clipped if n_rows <= GMM_FIT_ROWS else clipped[rng.choice(n_rows, GMM_FIT_ROWS, replace=False)]
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
        for start in range(0, n_rows, GMM_SCATTER_ROWS):  # by blocks of rows: no copy of the whole table per component
            block = slice(start, start + GMM_SCATTER_ROWS)
            for c in range(n_components):
                centred = clipped[block] - exact_means[c]
                scatter[c] += (centred.T * responsibilities[block, c]) @ centred
        exact_covariances = scatter / counts[:, None, None] + mixture.reg_covar * np.eye(n_dims)
        ranges = self.upper_ - self.lower_
        effective_rows = np.maximum(exact_weights * n_rows, 1.0)
        n_entries = n_dims * (n_dims + 1) // 2
        weight_scale = np.full(n_components, 1.0 / n_rows / (GMM_BUDGET["weights"] * self.epsilon_ / n_components))
        mean_budget = GMM_BUDGET["means"] * self.epsilon_ / n_components
        mean_scale = np.repeat((ranges.sum() / effective_rows / mean_budget)[:, None], n_dims, axis=1)
        covariance_budget = GMM_BUDGET["covariances"] * self.epsilon_ / n_components / n_entries
        covariance_scale = np.outer(ranges, ranges)[None] / effective_rows[:, None, None] / covariance_budget

        weights = np.clip(exact_weights + rng.laplace(0.0, 1.0, n_components) * weight_scale, WEIGHT_FLOOR, None)
        means = exact_means + rng.laplace(0.0, 1.0, mean_scale.shape) * mean_scale
        covariances = np.stack([
            repair_positive_definite(exact_covariances[c] + _symmetric_laplace(covariance_scale[c], rng), ranges)
            for c in range(n_components)
        ])
        self.exact_ = {"weights": exact_weights, "means": exact_means, "covariances": exact_covariances}
        self.noise_scales_ = {"weights": weight_scale, "means": mean_scale, "covariances": covariance_scale}
        self.noisy_ = {"weights": weights / weights.sum(), "means": means, "covariances": covariances}

    def _fit_histogram(self, clipped: np.ndarray, rng: np.random.Generator) -> None:
        """Independent per-dimension histograms of fixed-width bins over the bounds.

        The budget is split equally over the ``d`` dimensions. Replacing one row moves
        one count down and one up: L1 sensitivity 2 per dimension, so each count gets
        Laplace noise of scale ``2 d / epsilon``. Counts are clipped at 0 and normalised
        (uniform when all are 0).
        """
        n_dims = clipped.shape[1]
        n_bins = self.histogram_n_bins_
        edges = np.linspace(self.lower_, self.upper_, n_bins + 1, axis=1)  # (d, bins + 1)
        counts = np.stack([np.histogram(clipped[:, j], bins=edges[j])[0] for j in range(n_dims)]).astype(float)
        scale = np.full(counts.shape, 2.0 * n_dims / self.epsilon_)
        noisy = np.clip(counts + rng.laplace(0.0, 1.0, counts.shape) * scale, 0.0, None)
        totals = noisy.sum(axis=1, keepdims=True)
        probabilities = np.where(totals > 0, noisy / np.where(totals > 0, totals, 1.0), 1.0 / n_bins)
        self.exact_ = {"counts": counts}
        self.noise_scales_ = {"counts": scale}
        self.noisy_ = {"counts": noisy, "probabilities": probabilities, "edges": edges}

    def sample(self, n_rows: int, rng: np.random.Generator) -> np.ndarray:
        """``n_rows`` latent points drawn from the noisy model with ``rng`` (fresh draws on every call)."""
        if self.mechanism == "gaussian":
            return _sample_normal(self.noisy_["mean"], self.noisy_["covariance"], n_rows, rng)
        if self.mechanism == "gmm":
            counts = rng.multinomial(n_rows, self.noisy_["weights"])
            parts = [
                _sample_normal(self.noisy_["means"][c], self.noisy_["covariances"][c], count, rng)
                for c, count in enumerate(counts)
            ]
            points = np.concatenate(parts)
            del parts
            return points[rng.permutation(n_rows)]
        probabilities, edges = self.noisy_["probabilities"], self.noisy_["edges"]
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


def _symmetric_laplace(scales: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Laplace noise drawn for the upper triangle (diagonal included) and mirrored."""
    noise = np.triu(rng.laplace(0.0, 1.0, scales.shape) * scales)
    return noise + np.triu(noise, 1).T


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
    for c, (weight, mean, factor) in enumerate(zip(weights, means, precision_choleskys)):
        projected = (points - mean.astype(dtype)) @ factor.astype(dtype)
        squared_distances = np.einsum("ij,ij->i", projected, projected)
        log_shares[:, c] = np.log(weight) + np.log(np.diag(factor)).sum() - 0.5 * squared_distances
    log_shares -= log_shares.max(axis=1, keepdims=True)
    np.exp(log_shares, out=log_shares)
    log_shares /= log_shares.sum(axis=1, keepdims=True)
    return log_shares


def repair_positive_definite(matrix: np.ndarray, ranges: np.ndarray) -> np.ndarray:
    """Symmetrise and floor the eigenvalues at ``EIGENVALUE_FLOOR * mean(range^2)`` (at least a tiny positive)."""
    symmetric = (matrix + matrix.T) / 2
    eigenvalues, eigenvectors = np.linalg.eigh(symmetric)
    floor = max(EIGENVALUE_FLOOR * float(np.mean(ranges**2)), 1e-12)
    repaired = (eigenvectors * np.maximum(eigenvalues, floor)) @ eigenvectors.T
    return (repaired + repaired.T) / 2


def _sample_normal(mean: np.ndarray, covariance: np.ndarray, n_rows: int, rng: np.random.Generator) -> np.ndarray:
    factor = np.linalg.cholesky(covariance)
    return mean + rng.standard_normal((n_rows, len(mean))) @ factor.T
