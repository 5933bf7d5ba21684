"""The two synthesis methods as objects (SPEC sections 3 and 4): what each checks, how it makes the synthetic rows of
the model table, whether its avatars are paired with their originals. :func:`method_of` reads the one set of
:class:`~core.engine.parameters.Parameters` and says which method it asks for.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from core.engine.avatar import avatarize_rows
from core.engine.encoding import EncodedTable
from core.engine.fast_dp import FastDPSynthesizer
from core.engine.parameters import REFERENCE_SPREAD, RESTORED_SPREAD, SPREADS, Parameters
from core.engine.projection import Projection
from core.errors import InputError
from core.i18n import _, number
from core.validation import check_whole_number

Neighbours = tuple[np.ndarray, np.ndarray]  # distances and indices (n, k), nearest first


@dataclass(frozen=True)
class Avatar:
    """Avatar (SPEC section 3): each individual's ``k`` nearest neighbours combined with random weights. Avatar
    ``i`` is made from original ``i`` (``paired``): what the privacy metrics measure, and what is sensitive."""

    k: int
    restore_spread: bool = False  # the neighbours' local spread put back (spread "restored", not the engine's)
    name: ClassVar[str] = "avatar"
    paired: ClassVar[bool] = True
    synthesizer: ClassVar[None] = None  # no model: the neighbours are the model

    def check_rows(self, n_rows: int, n_total: int, holdout: bool) -> None:
        """``k`` below the rows avatarized ``n_rows`` (of ``n_total``, half of them when a ``holdout`` is set
        aside); k = 2 warned of."""
        if self.k >= n_rows:
            if holdout:
                raise InputError(_(
                    "k must be smaller than the number of rows avatarized, {rows} (half of {total}: the "
                    "other half is the holdout), got {k}. Lower k, or turn the holdout off."
                ).format(rows=number(n_rows), total=number(n_total), k=number(self.k)))
            raise InputError(_(
                "k must be smaller than the number of rows, {rows}, got {k}. "
                "Lower k, or give a table with more rows."
            ).format(rows=number(n_rows), k=number(self.k)))
        if self.k == 2:
            warnings.warn(
                _("k = 2 combines only two neighbours: avatars stay close to them. Prefer k >= 5."), UserWarning,
                stacklevel=4,
            )

    def describe(self) -> str:
        if self.restore_spread:
            return _("Avatar, k = {k}, spread restored").format(k=self.k)
        return _("Avatar, k = {k}").format(k=self.k)

    def synthesize(self, table: EncodedTable, coordinates: np.ndarray, projection: Projection,
                   rng: np.random.Generator, *, neighbours: Neighbours | None = None,
                   model: FastDPSynthesizer | None = None, numbers: int | None = None) -> EncodedTable:
        """Every row's avatar (``neighbours``: found beforehand at this ``k`` or more, cut to it; ``numbers``: the
        table's own numeric columns, first, before a categorical reduction's embeddings)."""
        return avatarize_rows(table, coordinates, self.k, rng, neighbours, self.restore_spread, numbers)


@dataclass(frozen=True)
class AvatarFastDP:
    """AvatarFastDP (SPEC section 4): rows sampled from a noisy model of the latent coordinates (``synthesizer``,
    validated, unfitted), projected back. Its avatars are made from no one in particular: not ``paired``."""

    synthesizer: FastDPSynthesizer
    name: ClassVar[str] = "fast_dp"
    paired: ClassVar[bool] = False

    def check_rows(self, n_rows: int, n_total: int, holdout: bool) -> None:
        """The mixture: at most one component per row avatarized (5 000 on 500 rows were cut to 500 without a
        word)."""
        components = self.synthesizer.gmm_n_components_
        if self.synthesizer.mechanism == "gmm" and components > n_rows:
            raise InputError(_(
                "gmm_n_components must be at most the number of rows avatarized, {rows}, got {components}. Lower "
                "gmm_n_components (5 by default)."
            ).format(rows=number(n_rows), components=number(components)))

    def describe(self) -> str:
        return _("AvatarFastDP ({mechanism}), epsilon = {epsilon}").format(
            mechanism=self.synthesizer.mechanism, epsilon=number(self.synthesizer.epsilon, "g"))

    def synthesize(self, table: EncodedTable, coordinates: np.ndarray, projection: Projection,
                   rng: np.random.Generator, *, neighbours: Neighbours | None = None,
                   model: FastDPSynthesizer | None = None, numbers: int | None = None) -> EncodedTable:
        """As many rows as ``table``'s (``numbers``: Avatar's, unused here), sampled from ``model`` (fitted on the whole table, for a batch of it) or
        from the noisy model fitted here on ``coordinates`` (``synthesizer``, fitted in place); back-projected
        values kept within the range observed."""
        model = model or self.synthesizer.fit(coordinates, rng)
        latent = model.sample(table.n_rows, rng)
        numeric, codes = projection.inverse_transform(latent, rng)
        del latent
        if numeric.size:
            np.clip(numeric, table.numeric.min(axis=0), table.numeric.max(axis=0), out=numeric)
        return table.with_arrays(numeric, codes)


Method = Avatar | AvatarFastDP


def method_of(parameters: Parameters) -> Method:
    """The method ``parameters`` ask for, its parameters checked: exactly one of ``k`` (Avatar) and
    ``fast_dp_epsilon`` (AvatarFastDP)."""
    if parameters.k is not None and parameters.fast_dp_epsilon is not None:
        raise InputError(_(
            "k and fast_dp_epsilon are mutually exclusive: set k (Avatar) or fast_dp_epsilon (AvatarFastDP), "
            "not both."
        ))
    if parameters.k is None and parameters.fast_dp_epsilon is None:
        raise InputError(_(
            "Set exactly one of k (Avatar, for example k=10) or fast_dp_epsilon (AvatarFastDP, for example 1.0)."
        ))
    if parameters.k is not None:
        if parameters.spread not in SPREADS:
            raise InputError(_("spread must be one of {choices}, got '{spread}'.").format(
                choices=", ".join(SPREADS), spread=parameters.spread))
        return Avatar(check_whole_number("k", parameters.k, minimum=2,
                                         hint=_("k is the number of neighbours combined, for example 10.")),
                      restore_spread=parameters.spread == RESTORED_SPREAD)
    assert parameters.fast_dp_epsilon is not None  # k is not: exactly one is set (checked above)
    if parameters.spread != REFERENCE_SPREAD:
        raise InputError(_("spread '{spread}' is Avatar's (k): AvatarFastDP samples a model and mixes no "
                           "neighbours. Remove spread, or set k instead of fast_dp_epsilon.").format(
            spread=parameters.spread))
    synthesizer = FastDPSynthesizer(parameters.fast_dp_epsilon, parameters.mechanism, parameters.gmm_n_components,
                                    parameters.histogram_n_bins, parameters.bounds_percentile)
    synthesizer.validate()
    if parameters.exclude_variable_names and parameters.exclude_replacement_strategy == "row_order":
        raise InputError(_(
            "exclude_replacement_strategy 'row_order' needs avatars paired with their originals, which "
            "AvatarFastDP does not make: use 'coordinate_similarity'."
        ))
    return AvatarFastDP(synthesizer)
