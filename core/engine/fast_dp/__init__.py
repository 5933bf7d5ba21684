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

from typing import Any

import numpy as np

from core.engine.fast_dp.gaussian import GaussianModel
from core.engine.fast_dp.gmm import MixtureModel, component_shares
from core.engine.fast_dp.histogram import HistogramModel
from core.engine.fast_dp.noise import NoisyModel, repair_positive_definite
from core.engine.parameters import MECHANISMS
from core.errors import InputError
from core.i18n import _
from core.validation import check_choice, check_positive_number, check_whole_number

# One module per mechanism, each a model class with fit(clipped, lower, upper, epsilon, rng, options) and sample
# (statistics of each mechanism's own type, Any here: the synthesizer passes them through unread).
MODELS: dict[str, type[NoisyModel[Any]]] = dict(
    zip(MECHANISMS, (GaussianModel, MixtureModel, HistogramModel), strict=True))
NOT_COVERED = (  # what the DP noise does not cover: computed on the real values (keys of the JSON, shown translated)
    "projection", "clipping bounds", "column types and decimals", "missing values and spikes")


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
    model_ : the mechanism's fitted model (:mod:`~core.engine.fast_dp.gaussian`, :mod:`~core.engine.fast_dp.gmm`,
        :mod:`~core.engine.fast_dp.histogram`).
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
            "fast_dp_epsilon", self.epsilon, hint=_("It is the privacy budget, for example 1.0.")
        )
        check_choice("mechanism", self.mechanism, MECHANISMS)
        self.gmm_n_components_ = check_whole_number("gmm_n_components", self.gmm_n_components, minimum=1)
        self.histogram_n_bins_ = check_whole_number("histogram_n_bins", self.histogram_n_bins, minimum=2)
        percentile = self.bounds_percentile
        if isinstance(percentile, bool) or not isinstance(percentile, (int, float)) or not 0 < percentile < 50:
            raise InputError(
                _("bounds_percentile must be a number between 0 and 50 (both excluded), got {value}.").format(
                    value=repr(percentile))
            )

    def fit(self, coordinates: np.ndarray, rng: np.random.Generator) -> FastDPSynthesizer:
        """Clip ``coordinates`` (n, d) to the percentile bounds and fit the noisy model."""
        self.fit_bounds(coordinates)
        return self.fit_model(rng, coordinates=coordinates)

    def fit_bounds(self, coordinates: np.ndarray) -> FastDPSynthesizer:
        """The clipping bounds: each dimension's ``bounds_percentile`` percentile and its mirror (of every row, or
        of a sample of a table too large for memory, SPEC section 10)."""
        self.validate()
        columns = coordinates.T  # one column copied at a time by the percentiles, not the whole table
        self.lower_ = np.array([np.percentile(column, self.bounds_percentile) for column in columns])
        self.upper_ = np.array([np.percentile(column, 100 - self.bounds_percentile) for column in columns])
        return self

    def statistics(self, coordinates: np.ndarray) -> object:
        """The summable statistics of one part of the clipped coordinates (mechanisms ``summable`` only)."""
        return MODELS[self.mechanism].statistics(self._clipped(coordinates), self.lower_, self.upper_, self._options())

    def fit_model(self, rng: np.random.Generator, *, coordinates: np.ndarray | None = None,
                  statistics: object | None = None) -> FastDPSynthesizer:
        """The noisy model, bounds fitted: from ``statistics`` summed over the parts of a table when given, else
        from ``coordinates`` (the rows, or a sample of them for a mechanism that is not summable)."""
        model = MODELS[self.mechanism]
        if statistics is not None:
            self.model_ = model.fit_statistics(statistics, self.lower_, self.upper_, self.epsilon_, rng,
                                               self._options())
        else:
            assert coordinates is not None  # the rows, when no statistics are given
            self.model_ = model.fit(self._clipped(coordinates), self.lower_, self.upper_, self.epsilon_, rng,
                                    self._options())
        self.exact_, self.noise_scales_, self.noisy_ = self.model_.exact, self.model_.noise_scales, self.model_.noisy
        return self

    @property
    def summable(self) -> bool:
        """Whether the mechanism's statistics are sums over the rows (gaussian, histogram; not gmm)."""
        return MODELS[self.mechanism].summable

    def _clipped(self, coordinates: np.ndarray) -> np.ndarray:
        return np.clip(coordinates, self.lower_, self.upper_)

    def _options(self) -> dict[str, int]:
        return {"gmm_n_components": self.gmm_n_components_, "histogram_n_bins": self.histogram_n_bins_}

    def ledger(self) -> dict[str, object]:
        """The epsilon ledger: where the budget goes (each noisy statistic's share and its split) and what no
        noise covers, in the terms of the JSON (SPEC 4: not end-to-end DP)."""
        n_dims = len(self.lower_)
        return {"epsilon": self.epsilon_, "mechanism": self.mechanism,
                "shares": [share.to_json() for share in MODELS[self.mechanism].ledger(self.epsilon_, n_dims,
                                                                                    self._options())],
                "not_covered": list(NOT_COVERED),
                **({"relative_noise": self.model_.relative_noise()} if hasattr(self, "model_") else {})}

    def sample(self, n_rows: int, rng: np.random.Generator) -> np.ndarray:
        """``n_rows`` latent points drawn from the noisy model with ``rng`` (fresh draws on every call)."""
        return self.model_.sample(n_rows, rng)


__all__ = ["MECHANISMS", "FastDPSynthesizer", "component_shares", "repair_positive_definite"]
