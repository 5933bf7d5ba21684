"""The public API: :class:`Avatarizer` runs the shared pipeline of SPEC section 2 with either method.

Steps: type the columns, set a real holdout half aside (SPEC section 5), set excluded
variables aside, encode, add missing indicators and impute, optionally reduce
many-modality categoricals, project, synthesise in the latent space (Avatar, SPEC
section 3, or AvatarFastDP, section 4), decode, restore missing values, re-attach the
excluded variables, shuffle. One ``numpy.random.Generator``, made from ``seed``, drives
every random step in that order, so the same seed gives the same avatars.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
import pandas as pd

from core.engine.avatar import avatarize_rows, neighbours_excluding_self
from core.engine.encoding import EncodedTable, TableCodec
from core.engine.fast_dp import FastDPSynthesizer
from core.engine.imputation import Indicators, add_indicators, impute, restore_indicated
from core.engine.io import release_freed_memory
from core.engine.neighbours import NeighbourTree
from core.engine.parameters import DEFAULT_NCP, EXCLUSION_STRATEGIES, IMPUTATION_METHODS, Parameters
from core.engine.prepared import PreparedTable
from core.engine.projection import Projection
from core.engine.reduction import CategoricalReduction
from core.engine.schema import MANY_MODALITIES
from core.engine.split import split_holdout
from core.engine.table_typing import TableTyping, type_frame
from core.engine.timing import timed
from core.errors import InputError
from core.i18n import _, number
from core.validation import check_choice, check_seed, check_whole_number

STEP_SHARES = {  # share of the work done when each step starts, for progress bars
    "typing": 0.0, "encoding and imputation": 0.1, "projection": 0.25, "synthesis": 0.35, "decoding": 0.9,
}
Progress = Callable[[str, float], None]
METHOD_PARAMETERS = ("k", "fast_dp_epsilon", "mechanism", "gmm_n_components", "histogram_n_bins", "bounds_percentile")
VARIANT_PARAMETERS = (*METHOD_PARAMETERS, "ncp")  # what a variant may change, the preparation being shared


def _from_prepared(name: str, doc: str) -> property:
    """A fitted attribute read from the :class:`~core.engine.prepared.PreparedTable`."""
    return property(lambda self: getattr(self.prepared_, name), doc=doc)


class Avatarizer:
    """Generate avatars of a table (SPEC sections 2 to 5).

    Exactly one of ``k`` (Avatar) and ``fast_dp_epsilon`` (AvatarFastDP) must be set.

    Parameters
    ----------
    k : int, optional
        Avatar: number of nearest neighbours combined into each avatar; ``2 <= k < n``.
        Smaller keeps more signal, larger protects more.
    fast_dp_epsilon : float, optional
        AvatarFastDP: privacy budget, > 0. Smaller protects more. Uses DP mechanisms,
        not end-to-end DP (see :mod:`core.engine.fast_dp`).
    mechanism, gmm_n_components, histogram_n_bins, bounds_percentile :
        AvatarFastDP options (see :class:`~core.engine.fast_dp.FastDPSynthesizer`).
    ncp : int, optional
        Latent dimensions used for the neighbour search and the DP model; default
        ``min(5, number of scaled columns)``.
    imputation : {"fast_knn", "knn", "mode", "median", "mean"}
        Temporary imputation of missing values (see :mod:`core.engine.imputation`).
    use_categorical_reduction : bool or None
        Embed many-modality categoricals in a few numeric dimensions (see :mod:`core.engine.reduction`): every
        one with more than 4 modalities (True), none (False), or by default (None) those with more than 100
        (SPEC section 2 step 1, revised: time and memory stay bounded by the rows, not by modalities).
    exclude_variable_names : sequence of column names
        Variables set aside during synthesis and re-attached afterwards.
    exclude_replacement_strategy : {"coordinate_similarity", "row_order"}
        How excluded values are re-attached: from the original nearest to the avatar in
        the latent space of the other variables (default), or from the avatar's own
        original (``row_order``: sensitive, it copies the individual's own values;
        Avatar only).
    column_kinds : mapping of column name to "numeric", "categorical" or "datetime", optional
        Overrides of the detected kinds.
    column_weights : mapping of column name to a positive weight, optional
        Importance of each variable in the projection (see :class:`~core.engine.projection.Projection`).
    holdout : bool
        Set a random half aside before synthesis when the table has at least
        ``holdout_min_rows`` rows (SPEC section 5). Off: every row is avatarized.
    holdout_min_rows : int
    seed : int, optional
        Drives every random step. ``None`` draws one, kept in ``seed_``.

    Attributes
    ----------
    method_ : ``"avatar"`` or ``"fast_dp"``.
    avatars_ : DataFrame, shuffled: the avatars to share.
    paired_avatars_ : DataFrame or None. Avatar only: avatar ``i`` made from
        ``working_data_`` row ``i`` (derived from ``avatars_`` on each access). Sensitive:
        the pairing is what the privacy metrics need and what an attacker would want.
        Never share it. None for AvatarFastDP, whose avatars are sampled, not paired.
    working_data_, holdout_data_ : the originals avatarized (WO) and set aside (HO, or None);
        both None after a ``low_memory`` fit.
    holdout_ : ``"real"`` when a holdout half was set aside, else ``"none"`` (the
        metrics then draw an approximate one).
    holdout_rows_ : the number of rows set aside (0 without a holdout).
    kinds_, profiles_ : column kinds and per-column warnings.
    codec_ : the fitted encoding of the synthesised columns.
    imputed_table_ : WO encoded, imputed, with its missing indicators: what the projection sees
        (after categorical reduction when it is on). None after a ``low_memory`` fit.
    projection_, coordinates_ : the fitted projection and WO's first ``ncp_`` latent coordinates
        (None after a ``low_memory`` fit).
    synthesizer_ : the fitted :class:`~core.engine.fast_dp.FastDPSynthesizer` (AvatarFastDP).
    identifier_columns_ : identifier-like columns (a distinct value on almost every row) that took no part in the
        synthesis and hold new identifiers in the avatars (see :mod:`core.engine.identifiers`); a column typed with
        ``column_kinds`` or set aside is never one.
    prepared_ : the :class:`~core.engine.prepared.PreparedTable` the avatars were made from (the attributes
        above that describe the originals read it).
    ncp_, seed_ : the values used.
    timings_s_ : seconds per step.
    """

    def __init__(self, parameters: Parameters | None = None, /, **values: object):
        self.parameters = (parameters or Parameters()).with_values(values)

    def fit(self, frame: pd.DataFrame, progress: Progress | None = None, *, low_memory: bool = False,
            keys: Sequence[str] = ()) -> Avatarizer:
        """Avatarize ``frame``; the results are in the attributes ending with ``_``.

        ``keys``: the table's key columns (its primary key, from a dataset's description): decided before any
        kind, they take no part in the synthesis and get new values of their form, as identifiers do.

        ``progress``, if given, is called with the name of each step as it starts and
        the share of the work done before it (0 to 1).

        ``low_memory``, to make the avatars of a large table read for that alone: ``frame``'s
        columns are converted to their kinds in place (the caller's frame is changed),
        the originals are let go once encoded and the model table and coordinates once
        the avatars exist: ``working_data_``, ``holdout_data_``, ``imputed_table_`` and
        ``coordinates_`` are then None, and the metrics need a fit without it. The
        originals' memory goes back only if the caller keeps no reference to ``frame``
        (``fit(read_table(path), low_memory=True)``).
        """
        self._validate_method()
        largest_k = self.k if self.method_ == "avatar" else None
        rng = self._prepare(frame, progress, largest_k=largest_k, low_memory=low_memory, keys=keys)
        self._check_components()
        del frame  # from here the originals live only in what the fit keeps
        self._encode(rng, low_memory)
        self._project()
        self._variant_state = None if low_memory else rng.bit_generator.state  # where each variant starts
        self._finish(rng, release_model_table=low_memory)
        return self

    def fit_variants(self, frame: pd.DataFrame, variants: Sequence[Mapping[str, object]]) -> Iterator[Avatarizer]:
        """One fitted copy per variant, sharing the work that does not depend on it (see :class:`Variants`): typing,
        holdout split, imputation and projection are done once, the neighbour search once at the largest ``k``."""
        copies = [self._variant(variant) for variant in variants]  # every variant checked before any work
        k_values = [copy.k for copy in copies if copy.method_ == "avatar"]
        rng = self._prepare(frame, largest_k=max(k_values, default=None))
        self._encode(rng)
        self._project()
        self._variant_state = rng.bit_generator.state
        shared = Variants(self, largest_k=max(k_values, default=0))
        if k_values:  # one search at the largest k, as a sweep does
            shared.search(self.prepared_, max(k_values))
        for variant in variants:
            yield shared.fit(variant)

    def _variant(self, variant: Mapping[str, object]) -> Avatarizer:
        """An unfitted copy with ``variant``'s parameters, checked."""
        unknown = set(variant) - set(VARIANT_PARAMETERS)
        if unknown:
            raise InputError(_("A variant may only set {parameters}; got {unknown}.").format(
                parameters=", ".join(VARIANT_PARAMETERS), unknown=", ".join(sorted(unknown))))
        copy = type(self)(**{**self.get_params(), **variant})
        copy._validate_method()
        if copy.ncp is not None:
            check_whole_number("ncp", copy.ncp, minimum=1,
                               hint=_("ncp is the number of latent dimensions, for example 5."))
        return copy

    def _prepare(
        self, frame: pd.DataFrame, progress: Progress | None = None, largest_k: int | None = None,
        low_memory: bool = False, keys: Sequence[str] = (),
    ) -> np.random.Generator:
        """Typing and holdout split (then ``largest_k`` is checked), the start of a fit (then :meth:`_encode`,
        :meth:`_project`, :meth:`_finish`). Returns the generator. ``low_memory``: see :meth:`fit`."""
        rng = self._start(progress)
        with self._timed("typing"):
            frame, labels = _check_frame(frame, low_memory)
            typed, typing = type_frame(frame, self.column_kinds, self.exclude_variable_names, self.column_weights,
                                       in_place=low_memory, keys=keys)
        self._split(typed, typing, rng, labels)
        if largest_k is not None:
            self._check_k(largest_k)
        return rng

    def _start(self, progress: Progress | None = None, stream: int | None = None) -> np.random.Generator:
        """The common parameters checked, the timings and ``progress`` set; the generator of the seed (of its
        ``stream``, for one batch of many: batch 0 draws from the seed itself, so one batch is the fit in memory)."""
        self._validate_common()
        self.timings_s_: dict[str, float] = {}
        self._progress = progress
        return np.random.default_rng(self.seed_ if not stream else [self.seed_, stream])

    def _split(self, typed: pd.DataFrame, typing: TableTyping, rng: np.random.Generator, labels: tuple | None = None
               ) -> None:
        """The holdout half set aside (SPEC section 5) and the prepared table made."""
        if bool(self.holdout) and len(typed) >= self.holdout_min_rows:
            working_rows, holdout_rows = split_holdout(len(typed), rng)
            working, holdout = (typed.iloc[rows].reset_index(drop=True) for rows in (working_rows, holdout_rows))
        else:
            working, holdout = typed.reset_index(drop=True), None
        self.prepared_ = PreparedTable(
            kinds=typing.kinds, profiles=typing.profiles, columns=list(typed.columns), excluded=typing.excluded,
            working_data=working, holdout_data=holdout, excluded_originals=working[typing.excluded],
            n_total=len(typed), identifiers=typing.identifiers, labels=labels,
        )

    def _encode(self, rng: np.random.Generator, low_memory: bool = False, codec: TableCodec | None = None,
                layout: Indicators | None = None) -> None:
        """Encoding, missing indicators and imputation of the originals avatarized; ``low_memory`` lets the
        originals go here. ``codec`` and ``layout``: decided on the whole table when this is one batch of it."""
        prepared = self.prepared_
        synthesised = prepared.working_data.drop(columns=prepared.set_apart)
        if low_memory:
            prepared.working_data = prepared.holdout_data = None
        with self._timed("encoding and imputation"):
            prepared.codec = codec or TableCodec(prepared.kinds).fit(synthesised)
            encoded = prepared.codec.encode(synthesised)
            del synthesised  # with low_memory, the last reference to the originals' columns
            encoded, prepared.indicators = add_indicators(encoded, layout)
            prepared.complete = impute(encoded, self.imputation, rng)
            prepared.reduction = self._reduction(prepared.complete)
            prepared.model_table = (
                prepared.reduction.transform(prepared.complete) if prepared.reduction else prepared.complete
            )

    def _project(self, projection: Projection | None = None) -> None:
        """The projection of the model table (``projection``: fitted on the whole table when this is one batch of
        it), and the model table's coordinates on the first ``ncp_`` axes."""
        prepared = self.prepared_
        with self._timed("projection"):
            prepared.projection = projection or Projection(self._model_weights(prepared.reduction)).fit(
                prepared.model_table)
            prepared.ncp = self._resolve_ncp(len(prepared.projection.components_))
            prepared.coordinates = prepared.projection.transform(prepared.model_table, prepared.ncp)

    def _finish(
        self,
        rng: np.random.Generator,
        neighbours: tuple[np.ndarray, np.ndarray] | None = None,
        release_model_table: bool = False,
        numbering: tuple[int, int | None] = (0, None),
    ) -> None:
        """Synthesis and decoding, from the prepared state; ``numbering``: the new identifiers of one batch start
        after the avatars of the batches before it, and are written for the total (see
        :meth:`~core.engine.identifiers.IdentifierForm.new_values`)."""
        with self._timed("synthesis"):
            synthetic = self._synthesise(rng, neighbours)

        prepared = self.prepared_
        with self._timed("decoding"):
            complete = prepared.complete
            sources = self._excluded_sources(synthetic) if prepared.excluded else None  # before the blanks below
            decoded = synthetic if prepared.reduction is None else prepared.reduction.inverse_transform(
                synthetic, complete)
            del synthetic, complete
            if release_model_table:
                prepared.complete = prepared.model_table = prepared.coordinates = None
            restored = restore_indicated(decoded, prepared.indicators, prepared.codec.steps())
            if self.method_ == "avatar":  # shuffled before decoding: one frame, the pairing kept as an order
                order = rng.permutation(restored.n_rows)
                _permute_rows(restored, order)
                sources = None if sources is None else sources[order]
                self._paired_order: np.ndarray | None = np.argsort(order)
            else:
                self._paired_order = None
            avatars = prepared.codec.decode(restored)
            if prepared.excluded:
                avatars = self._reattach(avatars, sources)
            for form in prepared.identifiers:
                avatars[form.name] = form.new_values(len(avatars), *numbering)
            self.avatars_ = _as_given(avatars[prepared.columns], prepared.labels)

    @property
    def paired_avatars_(self) -> pd.DataFrame | None:
        """Avatar only: avatar ``i`` made from ``working_data_`` row ``i`` (sensitive); None for AvatarFastDP."""
        if self._paired_order is None:
            return None
        return self.avatars_.iloc[self._paired_order].reset_index(drop=True)

    # The fitted attributes that describe the originals, read from the prepared table.
    kinds_ = _from_prepared("kinds", "Column kinds.")
    profiles_ = _from_prepared("profiles", "Per-column profiles and warnings.")
    @property
    def working_data_(self) -> pd.DataFrame | None:
        """WO (None after a low_memory fit)."""
        return _as_given(self.prepared_.working_data, self.prepared_.labels)

    @property
    def holdout_data_(self) -> pd.DataFrame | None:
        """HO, or None."""
        return _as_given(self.prepared_.holdout_data, self.prepared_.labels)

    holdout_ = _from_prepared("holdout", '"real" or "none".')
    holdout_rows_ = _from_prepared("holdout_rows", "Rows set aside (0 without a holdout).")
    codec_ = _from_prepared("codec", "The encoding of the synthesised columns.")
    reduction_ = _from_prepared("reduction", "The categorical reduction, or None.")
    imputed_table_ = _from_prepared("model_table", "What the projection sees.")
    projection_ = _from_prepared("projection", "The fitted projection.")
    ncp_ = _from_prepared("ncp", "Latent dimensions used.")
    coordinates_ = _from_prepared("coordinates", "WO's first ncp_ latent coordinates.")
    identifier_columns_ = property(lambda self: [form.name for form in self.prepared_.identifiers],
                                   doc="Identifier-like columns given new identifiers (no part in the synthesis).")

    def get_params(self) -> dict[str, object]:
        """The parameters one table's synthesis reads, as scikit-learn's ``get_params`` gives them (plain values)."""
        return {name: _plain(value) for name, value in self.parameters.table_values().items()}

    def _validate_method(self) -> None:
        """Exactly one method, with valid parameters."""
        if self.k is not None and self.fast_dp_epsilon is not None:
            raise InputError(_(
                "k and fast_dp_epsilon are mutually exclusive: set k (Avatar) or fast_dp_epsilon (AvatarFastDP), "
                "not both."
            ))
        if self.k is None and self.fast_dp_epsilon is None:
            raise InputError(_(
                "Set exactly one of k (Avatar, for example k=10) or fast_dp_epsilon (AvatarFastDP, for example 1.0)."
            ))
        if self.k is not None:
            self.method_ = "avatar"
            check_whole_number("k", self.k, minimum=2,
                               hint=_("k is the number of neighbours combined, for example 10."))
        else:
            self.method_ = "fast_dp"
            self.synthesizer_ = FastDPSynthesizer(
                self.fast_dp_epsilon, self.mechanism, self.gmm_n_components, self.histogram_n_bins, self.bounds_percentile
            )
            self.synthesizer_.validate()
        if self.method_ == "fast_dp" and self.exclude_variable_names and self.exclude_replacement_strategy == "row_order":
            raise InputError(_(
                "exclude_replacement_strategy 'row_order' needs avatars paired with their originals, which "
                "AvatarFastDP does not make: use 'coordinate_similarity'."
            ))

    def _validate_common(self) -> None:
        """The parameters every method shares; draws the seed when none is given."""
        if self.ncp is not None:
            check_whole_number("ncp", self.ncp, minimum=1,
                               hint=_("ncp is the number of latent dimensions, for example 5."))
        check_choice("imputation", self.imputation, IMPUTATION_METHODS)
        check_choice("exclude_replacement_strategy", self.exclude_replacement_strategy, EXCLUSION_STRATEGIES)
        check_whole_number("holdout_min_rows", self.holdout_min_rows, minimum=2)
        seed = check_seed(self.seed)
        self.seed_ = int(np.random.SeedSequence().entropy % 2**32) if seed is None else seed

    def _check_k(self, k: int) -> None:
        n_rows, n_total = self.prepared_.n_working, self.prepared_.n_total
        if k >= n_rows:
            if self.holdout_ == "real":
                raise InputError(_(
                    "k must be smaller than the number of rows avatarized, {rows} (half of {total}: the "
                    "other half is the holdout), got {k}. Lower k, or turn the holdout off."
                ).format(rows=number(n_rows), total=number(n_total), k=number(k)))
            raise InputError(_(
                "k must be smaller than the number of rows, {rows}, got {k}. "
                "Lower k, or give a table with more rows."
            ).format(rows=number(n_rows), k=number(k)))
        if k == 2:
            warnings.warn(
                _("k = 2 combines only two neighbours: avatars stay close to them. Prefer k >= 5."), UserWarning,
                stacklevel=4,
            )

    def _check_components(self) -> None:
        """AvatarFastDP's mixture: at most one component per row avatarized (5 000 on 500 rows were cut to 500
        without a word)."""
        if self.method_ != "fast_dp" or self.mechanism != "gmm":
            return
        n_rows, components = self.prepared_.n_working, self.synthesizer_.gmm_n_components_
        if components > n_rows:
            raise InputError(_(
                "gmm_n_components must be at most the number of rows avatarized, {rows}, got {components}. Lower "
                "gmm_n_components (5 by default)."
            ).format(rows=number(n_rows), components=number(components)))

    def _reduction(self, complete: EncodedTable) -> CategoricalReduction | None:
        """The categorical reduction of ``complete``, fitted (see :meth:`_reduction_plan`)."""
        plan = self._reduction_plan(complete.categories)
        return plan.fit(complete) if plan else None

    def _reduction_plan(self, categories: tuple[np.ndarray, ...]) -> CategoricalReduction | None:
        """The categorical reduction to use, unfitted: on, off, or by default only for more than
        ``MANY_MODALITIES`` modalities."""
        if self.use_categorical_reduction is None:
            if all(len(modalities) <= MANY_MODALITIES for modalities in categories):
                return None
            return CategoricalReduction(min_modalities=MANY_MODALITIES + 1)
        return CategoricalReduction() if self.use_categorical_reduction else None

    def _model_weights(self, reduction: CategoricalReduction | None) -> dict[str, float]:
        """The weights of the model table's variables: the user's, and the reduced variables' embedded columns' (a
        user weight on a reduced variable applies to its embedded columns, scaled by theirs)."""
        weights = {**(reduction.column_weights_ if reduction else {}), **(self.column_weights or {})}
        for embedding in reduction.embeddings_ if reduction else ():
            if embedding.name in weights:
                user_weight = weights.pop(embedding.name)
                for column in embedding.column_names():
                    weights[column] *= user_weight
        return weights

    def _resolve_ncp(self, n_scaled_columns: int) -> int:
        if self.ncp is None:
            return min(DEFAULT_NCP, n_scaled_columns)
        if self.ncp > n_scaled_columns:
            raise InputError(_(
                "ncp must be at most {columns}, the number of scaled columns of this table, got {ncp}."
            ).format(columns=number(n_scaled_columns), ncp=number(self.ncp)))
        return int(self.ncp)

    def _synthesise(
        self, rng: np.random.Generator, neighbours: tuple[np.ndarray, np.ndarray] | None
    ) -> EncodedTable:
        """Synthetic rows of the model table (encoded, imputed, with indicators, reduced)."""
        table = self.imputed_table_
        if self.method_ == "avatar":
            return avatarize_rows(table, self.coordinates_, self.k, rng, neighbours)
        latent = self._fitted_synthesizer(rng).sample(table.n_rows, rng)
        numeric, codes = self.projection_.inverse_transform(latent, rng)
        del latent
        if numeric.size:  # keep back-projected values within the range observed
            np.clip(numeric, table.numeric.min(axis=0), table.numeric.max(axis=0), out=numeric)
        return table.with_arrays(numeric, codes)

    def _fitted_synthesizer(self, rng: np.random.Generator) -> FastDPSynthesizer:
        """AvatarFastDP's noisy model, fitted on the latent coordinates of the rows avatarized."""
        return self.synthesizer_.fit(self.coordinates_, rng)

    def _excluded_sources(self, synthetic: EncodedTable) -> np.ndarray:
        """The original each avatar copies its excluded values from: the nearest in latent space, or its own."""
        if self.exclude_replacement_strategy == "row_order":
            return np.arange(synthetic.n_rows)
        avatar_coordinates = self.projection_.transform(synthetic, self.ncp_)
        return NeighbourTree(self.coordinates_).query(avatar_coordinates, 1)[1][:, 0]

    def _reattach(self, avatars: pd.DataFrame, sources: np.ndarray) -> pd.DataFrame:
        """Excluded variables copied from the originals ``sources`` gives."""
        part = self.prepared_.excluded_originals
        codec = TableCodec(self.kinds_).fit(part)
        copied = codec.decode(codec.encode(part).take(sources))
        return pd.concat([avatars, copied], axis=1)

    @contextmanager
    def _timed(self, step: str) -> Iterator[None]:
        """A step of the fit: told to ``progress``, timed, started by handing freed memory back to the system."""
        if self._progress is not None:
            self._progress(step, STEP_SHARES[step])
        release_freed_memory()
        with timed(self.timings_s_, step):
            yield


for _name in Parameters.names():  # avatarizer.k, avatarizer.seed...: read from its parameters
    setattr(Avatarizer, _name, property(lambda self, name=_name: getattr(self.parameters, name),
                                        doc=f"The parameter {_name} (see :class:`Parameters`)."))


class Variants:
    """Fitted copies of a fitted :class:`Avatarizer` for other method parameters or another ``ncp``
    (:data:`VARIANT_PARAMETERS`), from its preparation (typing, holdout split, encoding, imputation, projection).

    Each copy equals ``Avatarizer(**{**base.get_params(), **variant}).fit(frame)``: the random generator restarts
    from the state the base's synthesis started from, and another ``ncp`` takes the first axes of the same
    projection. The neighbours of each ``ncp`` are searched at the largest ``k`` asked so far (up to twice it, at
    most ``largest_k``: the largest a caller will ask), and cut for a smaller one. (Where exact duplicates tie at the k-th neighbour, the shared search
    may pick another of the tied rows than a search at that ``k`` would.) The base must keep its model table: not a
    ``low_memory`` fit.
    """

    def __init__(self, base: Avatarizer, largest_k: int = 0):
        if getattr(base, "_variant_state", None) is None or base.prepared_.model_table is None:
            raise ValueError("variants need a fitted Avatarizer that kept its model table (not a low_memory fit)")
        self.base, self.largest_k = base, largest_k
        self._neighbours: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._prepared: dict[int, PreparedTable] = {base.prepared_.ncp: base.prepared_}

    def fit(self, variant: Mapping[str, object]) -> Avatarizer:
        base = self.base
        copy = base._variant(variant)
        copy.prepared_ = self._prepared_for(copy)
        copy.seed_, copy._progress, copy._variant_state = base.seed_, None, base._variant_state
        copy.timings_s_ = dict(base.timings_s_)
        neighbours = None
        if copy.method_ == "avatar":
            copy._check_k(copy.k)
            neighbours = self._neighbours_for(copy.prepared_, copy.k)
        copy._check_components()
        rng = np.random.default_rng()
        rng.bit_generator.state = base._variant_state
        copy._finish(rng, neighbours)
        return copy

    def _prepared_for(self, copy: Avatarizer) -> PreparedTable:
        """The base's prepared table, with the coordinates of ``copy``'s ``ncp``."""
        prepared = self.base.prepared_
        ncp = copy._resolve_ncp(len(prepared.projection.components_))
        if ncp not in self._prepared:
            self._prepared[ncp] = replace(prepared, ncp=ncp,
                                          coordinates=prepared.projection.transform(prepared.model_table, ncp))
        return self._prepared[ncp]

    def search(self, prepared: PreparedTable, k: int) -> None:
        """The neighbours of ``prepared``'s rows searched now at ``k`` (the largest the caller will ask)."""
        self._neighbours[prepared.ncp] = neighbours_excluding_self(prepared.coordinates, k)

    def _neighbours_for(self, prepared: PreparedTable, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The neighbours at ``k``, cut from the largest search of this ``ncp`` so far; a new search reaches twice
        ``k`` (at most ``largest_k``), so that settings tried in growing order search about log2 times."""
        found = self._neighbours.get(prepared.ncp)
        if found is None or found[0].shape[1] < k:
            found = neighbours_excluding_self(prepared.coordinates, max(k, min(2 * k, self.largest_k)))
            self._neighbours[prepared.ncp] = found
        return found[0][:, :k], found[1][:, :k]


def _permute_rows(table: EncodedTable, order: np.ndarray) -> None:
    """Rows of ``table`` put in ``order``, in place, one column at a time (no copy of the whole table)."""
    for values in (table.numeric, table.codes):
        for j in range(values.shape[1]):
            values[:, j] = values[order, j]


def _plain(value: object) -> object:
    """A parameter value as JSON can hold it."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (list, tuple)):
        return list(value)
    return value


def _as_given(frame: pd.DataFrame | None, labels: tuple | None) -> pd.DataFrame | None:
    """``frame`` with the user's column labels (itself when they were all strings)."""
    return frame if frame is None or labels is None else frame.set_axis(list(labels), axis=1)


def _check_frame(frame: pd.DataFrame, in_place: bool = False) -> tuple[pd.DataFrame, tuple | None]:
    """``frame`` checked, with its column names as strings (in ``frame`` itself when ``in_place``), and its labels
    as given when one was not a string (else None)."""
    if not isinstance(frame, pd.DataFrame):
        raise InputError(_("The table must be a pandas DataFrame, got {type}.").format(type=type(frame).__name__))
    labels = None if all(isinstance(label, str) for label in frame.columns) else tuple(frame.columns)
    names = [str(name) for name in frame.columns]
    duplicated = pd.Index(names)[pd.Index(names).duplicated()]
    if len(duplicated):
        raise InputError(_("Two columns are named '{name}': rename one so that every column name is unique.").format(
            name=duplicated[0]))
    if frame.shape[1] == 0:
        raise InputError(_("The table has no columns."))
    if len(frame) == 0:
        raise InputError(_("The table has no rows."))
    if not in_place:
        frame = frame.copy(deep=False)
    frame.columns = names
    return frame, labels

