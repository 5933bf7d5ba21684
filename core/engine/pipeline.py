"""The public API: :class:`Avatarizer` runs the shared pipeline of SPEC section 2 with either method.

Steps (each a function of :mod:`core.engine.stages`, composed here): type the columns, set a real holdout half
aside (SPEC section 5), set excluded variables aside, encode, add missing indicators and impute, optionally reduce
many-modality categoricals, project, synthesise in the latent space with the method (:mod:`core.engine.methods`:
Avatar, SPEC section 3, or AvatarFastDP, section 4), decode, restore missing values, re-attach the excluded
variables, shuffle. One ``numpy.random.Generator``, made from ``seed``, drives every random step in that order, so
the same seed gives the same avatars.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.dataset.relations import Relation, RelationsAsked
from core.engine.avatar import neighbours_excluding_self
from core.engine.fast_dp import FastDPSynthesizer
from core.engine.io import release_freed_memory
from core.engine.methods import Avatar, Method, Neighbours, method_of
from core.engine.parameters import EXCLUSION_STRATEGIES, IMPUTATION_METHODS, Parameters
from core.engine.stages import (
    Encoded,
    Projected,
    SplitTable,
    as_given,
    check_ncp,
    decode,
    drawn_seed,
    encode,
    fitted_reduction,
    project,
    seed_generator,
    split_table,
    type_table,
    with_ncp,
)
from core.engine.timing import timed
from core.errors import InputError
from core.i18n import _
from core.validation import check_choice, check_seed, check_whole_number

STEP_SHARES = {  # share of the work done when each step starts, for progress bars
    "typing": 0.0, "encoding and imputation": 0.1, "projection": 0.25, "synthesis": 0.35, "decoding": 0.9,
}
Progress = Callable[[str, float], None]
# what a variant may change, the preparation being shared: the method and its tuning (their scopes), ncp
VARIANT_PARAMETERS = (*Parameters.names("method", "fast_dp"), "ncp")


def _from_stage(stage: str, name: str, doc: str) -> property:
    """A fitted attribute read from one of the fit's stages (:mod:`core.engine.stages`), or a parameter."""
    return property(lambda self: getattr(getattr(self, stage), name), doc=doc)


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
    method_ : the method, :class:`~core.engine.methods.Avatar` or :class:`~core.engine.methods.AvatarFastDP`
        (its ``name``, ``"avatar"`` or ``"fast_dp"``, is the JSON's).
    avatars_ : DataFrame, shuffled: the avatars to share, each column with the dtype it was given (a categorical
        given as ``str`` or ``object`` comes back so; whole-number codes as integers; dates as dates).
    paired_avatars_ : DataFrame or None. Avatar only: avatar ``i`` made from
        ``working_data_`` row ``i`` (derived from ``avatars_`` on each access). Sensitive:
        the pairing is what the privacy metrics need and what an attacker would want.
        Never share it. None for AvatarFastDP, whose avatars are sampled, not paired.
    working_data_, holdout_data_ : the originals avatarized (WO) and set aside (HO, or None), typed as the
        metrics read them (categorical columns as pandas categories); both None after a ``low_memory`` fit.
    holdout_ : ``Holdout.REAL`` when a holdout half was set aside, else ``Holdout.NONE`` (the
        metrics then draw an approximate one).
    holdout_rows_ : the number of rows set aside (0 without a holdout).
    kinds_, profiles_ : column kinds and per-column warnings.
    codec_ : the fitted encoding of the synthesised columns.
    imputed_table_ : WO encoded, imputed, with its missing indicators: what the projection sees
        (after categorical reduction when it is on). None after a ``low_memory`` fit.
    projection_, coordinates_ : the fitted projection and WO's first ``ncp_`` latent coordinates
        (None after a ``low_memory`` fit).
    paired_order_ : Avatar only: the row of ``avatars_`` made from each row of ``working_data_`` (sensitive, as
        ``paired_avatars_``); None for AvatarFastDP.
    avatar_coordinates_ : the avatars' first ``ncp_`` latent coordinates, by row of ``avatars_`` (a fit with
        ``latent_avatars``; else None).
    synthesizer_ : the fitted :class:`~core.engine.fast_dp.FastDPSynthesizer` (AvatarFastDP).
    relations_ : the relations the avatars keep (:mod:`core.dataset.relations`), found exact on the typed
        originals (between the columns that take part in the synthesis) or given to :meth:`fit`: each derived
        column takes no part in the synthesis and is computed from its sources in every avatar.
    identifier_columns_ : identifier-like columns (a distinct value on almost every row) that took no part in the
        synthesis and hold new identifiers in the avatars (see :mod:`core.engine.identifiers`); a column typed with
        ``column_kinds`` or set aside is never one.
    split_, encoded_, projected_ : the stages the avatars were made from (:mod:`core.engine.stages`; the attributes
        above that describe the originals read them).
    ncp_, seed_ : the values used.
    timings_s_ : seconds per step.
    """

    def __init__(self, parameters: Parameters | None = None, /, **values: object):
        self.parameters = (parameters or Parameters()).with_values(values)

    def fit(self, frame: pd.DataFrame, progress: Progress | None = None, *, low_memory: bool = False,
            keys: Sequence[str] = (), relations: Sequence[Relation] | RelationsAsked = RelationsAsked(),
            latent_avatars: bool = False, link_columns: Mapping[str, float] | None = None) -> Avatarizer:
        """Avatarize ``frame``; the results are in the attributes ending with ``_``.

        ``keys``: the table's key columns (its primary key, from a dataset's description): decided before any
        kind, they take no part in the synthesis and get new values of their form, as identifiers do.

        ``relations``: those the avatars keep (:mod:`core.dataset.relations`; none: ``()``), or what a table's
        description asks of them (:class:`~core.dataset.relations.RelationsAsked`: by default every one found exact
        on the typed originals, some ignored, others declared in lines such as ``"low = bwt < 2500"`` for relations
        the data show only approximately). Those kept are in ``relations_``.

        ``progress``, if given, is called with the name of each step as it starts and
        the share of the work done before it (0 to 1).

        ``low_memory``, to make the avatars of a large table read for that alone: ``frame``'s
        columns are converted to their kinds in place (the caller's frame is changed),
        the originals are let go once encoded and the model table and coordinates once
        the avatars exist: ``working_data_``, ``holdout_data_``, ``imputed_table_`` and
        ``coordinates_`` are then None, and the metrics need a fit without it. The
        originals' memory goes back only if the caller keeps no reference to ``frame``
        (``fit(read_table(path), low_memory=True)``).

        ``latent_avatars``: the avatars' own first ``ncp_`` latent coordinates kept too, in ``avatar_coordinates_``
        (row ``i`` is ``avatars_``'s row ``i``), where a child's linkage looks for its parent (SPEC 12).

        ``link_columns``: the columns of ``frame`` its links add to the synthesis (:mod:`core.engine.link_kinds`),
        numeric, each of its weight, kept in ``link_columns_``; not parameters of the table (``get_params`` leaves
        them out).
        """
        method = self.checked_method()
        rng, steps = self.start(progress)
        self.link_columns_: dict[str, float] = dict(link_columns or {})
        split = self._split(frame, rng, steps, keys=keys, low_memory=low_memory, relations=relations)
        del frame  # from here the originals live only in what the fit keeps
        split.check_rows(method)
        encoded, projected = self._prepare(split, rng, steps, release=low_memory)
        self._variant_state = None if low_memory else rng.bit_generator.state  # where each variant starts
        self.synthesize(method, (split, encoded, projected), rng, steps, release=low_memory,
                        latent_avatars=latent_avatars)
        return self

    def latent_coordinates(self, frame: pd.DataFrame, *, keys: Sequence[str] = (),
                           relations: Sequence[Relation] | RelationsAsked = RelationsAsked()) -> np.ndarray:
        """The first ``ncp`` latent coordinates of ``frame``'s working rows in their own projection, without a
        synthesis: the steps of :meth:`fit` up to the projection (``keys``, ``relations``: as it takes them)."""
        rng, steps = self.start()
        split = self._split(frame, rng, steps, keys=keys, relations=relations)
        coordinates = self._prepare(split, rng, steps)[1].coordinates
        assert coordinates is not None  # let go only by a low_memory synthesis
        return coordinates

    def fit_variants(self, frame: pd.DataFrame, variants: Sequence[Mapping[str, object]], *,
                     keys: Sequence[str] = (), relations: Sequence[Relation] | RelationsAsked = RelationsAsked()
                     ) -> Iterator[Avatarizer]:
        """One fitted copy per variant, sharing the work that does not depend on it (see :class:`Variants`): typing,
        holdout split, imputation and projection are done once, the neighbour search once at the largest ``k``;
        ``keys`` and ``relations`` as :meth:`fit` takes them."""
        copies = [self._variant(variant) for variant in variants]  # every variant checked before any work
        k_values = [copy.method_.k for copy in copies if isinstance(copy.method_, Avatar)]  # paired
        rng, steps = self.start()
        split = self._split(frame, rng, steps, keys=keys, relations=relations)
        if k_values:
            split.check_rows(Avatar(max(k_values)))
        self._prepare(split, rng, steps)
        self._variant_state = rng.bit_generator.state
        shared = Variants(self, largest_k=max(k_values, default=0))
        if k_values:  # one search at the largest k, as a sweep does
            shared.search(self.projected_, max(k_values))
        for variant in variants:
            yield shared.fit(variant)

    def start(self, progress: Progress | None = None, stream: int | None = None
              ) -> tuple[np.random.Generator, Steps]:
        """The parameters every method shares checked, the seed drawn when none is given (in ``seed_``), the steps'
        clock (``progress``, ``timings_s_``); the generator of the seed (of its ``stream``, for one batch of many:
        batch 0 draws from the seed itself, so one batch is the fit in memory)."""
        parameters = self.parameters
        check_ncp(parameters.ncp)
        check_choice("imputation", parameters.imputation, IMPUTATION_METHODS)
        check_choice("exclude_replacement_strategy", parameters.exclude_replacement_strategy, EXCLUSION_STRATEGIES)
        check_whole_number("holdout_min_rows", parameters.holdout_min_rows, minimum=2)
        seed = check_seed(parameters.seed)
        self.seed_ = drawn_seed() if seed is None else seed
        self.link_columns_ = {}
        steps = Steps(progress)
        self.timings_s_ = steps.timings
        return seed_generator(self.seed_, stream), steps

    def synthesize(
        self,
        method: Method,
        stages: tuple[SplitTable, Encoded, Projected],
        rng: np.random.Generator,
        steps: Steps,
        *,
        neighbours: Neighbours | None = None,
        model: FastDPSynthesizer | None = None,
        release: bool = False,
        numbering: tuple[int, int | None] = (0, None),
        latent_avatars: bool = False,
    ) -> Avatarizer:
        """The last steps, from the prepared ``stages``: the method's synthesis (``neighbours`` found beforehand;
        ``model``, AvatarFastDP's, fitted on the whole table), then decoding (see :func:`~core.engine.stages.decode`);
        the fitted attributes set (``latent_avatars``: see :meth:`fit`)."""
        split, encoded, projected = stages
        assert encoded.model_table is not None and projected.coordinates is not None  # let go only once decoded
        with steps.step("synthesis"):
            own = encoded.complete if encoded.complete is not None else encoded.model_table
            numbers = len(own.numeric_names)  # the table's own numbers come first, a reduction's embeddings after
            synthetic = method.synthesize(encoded.model_table, projected.coordinates, projected.projection, rng,
                                          neighbours=neighbours, model=model, numbers=numbers)
            latent = projected.projection.transform(synthetic, projected.ncp) if latent_avatars else None
        with steps.step("decoding"):
            synthesized = decode(synthetic, method, stages, self.parameters, rng, release=release,
                                 numbering=numbering)
        if latent is not None and synthesized.paired_order is not None:  # in the avatars' shuffled order
            latent = latent[np.argsort(synthesized.paired_order)]
        self.avatar_coordinates_ = latent
        self.method_, self.split_, self.encoded_, self.projected_ = method, split, encoded, projected
        self.synthesizer_ = model or method.synthesizer
        self.avatars_, self.paired_order_ = synthesized.avatars, synthesized.paired_order
        return self

    def checked_method(self) -> Method:
        """The method the parameters ask for, checked (see :func:`~core.engine.methods.method_of`), in
        ``method_``."""
        self.method_ = method_of(self.parameters)
        return self.method_

    def _variant(self, variant: Mapping[str, object]) -> Avatarizer:
        """An unfitted copy with ``variant``'s parameters, its method checked."""
        unknown = set(variant) - set(VARIANT_PARAMETERS)
        if unknown:
            raise InputError(_("A variant may only set {parameters}; got {unknown}.").format(
                parameters=", ".join(VARIANT_PARAMETERS), unknown=", ".join(sorted(unknown))))
        copy = type(self)(self.parameters.with_values(variant))
        copy.checked_method()
        check_ncp(copy.parameters.ncp)
        return copy

    def _split(self, frame: pd.DataFrame, rng: np.random.Generator, steps: Steps, *, keys: Sequence[str] = (),
               low_memory: bool = False, relations: Sequence[Relation] | RelationsAsked = RelationsAsked()
               ) -> SplitTable:
        """Typing and the holdout split, the start of a fit (``low_memory``: see :meth:`fit`), kept in ``split_``
        (what a ``progress`` told of the next step can read)."""
        with steps.step("typing"):
            typed = type_table(frame, self.synthesis_parameters_, keys, in_place=low_memory, relations=relations)
        self.split_ = split_table(typed, self.parameters, rng)
        return self.split_

    @property
    def synthesis_parameters_(self) -> Parameters:
        """The parameters the synthesis reads: the table's, with the columns its links add (``link_columns_``:
        numeric, of their weights)."""
        added, parameters = self.link_columns_, self.parameters
        if not added:
            return parameters
        kinds = {**(parameters.column_kinds or {}), **dict.fromkeys(added, Kind.NUMERIC.value)}
        return replace(parameters, column_kinds=kinds, column_weights={**(parameters.column_weights or {}), **added})

    def _prepare(self, split: SplitTable, rng: np.random.Generator, steps: Steps, release: bool = False
                 ) -> tuple[Encoded, Projected]:
        """Encoding, imputation, reduction and projection of ``split``, kept in ``encoded_`` and ``projected_``."""
        with steps.step("encoding and imputation"):
            encoded = encode(split, self.parameters, rng, release=release)
            assert encoded.complete is not None  # just encoded
            encoded.reduced(fitted_reduction(self.parameters, encoded.complete))
        with steps.step("projection"):
            projected = project(encoded, self.synthesis_parameters_, split.relations)
        self.encoded_, self.projected_ = encoded, projected
        return encoded, projected

    @property
    def paired_avatars_(self) -> pd.DataFrame | None:
        """Avatar only: avatar ``i`` made from ``working_data_`` row ``i`` (sensitive); None for AvatarFastDP."""
        if self.paired_order_ is None:
            return None
        return self.avatars_.iloc[self.paired_order_].reset_index(drop=True)

    # The fitted attributes that describe the originals, read from the stages.
    kinds_ = _from_stage("split_", "kinds", "Column kinds.")
    profiles_ = _from_stage("split_", "profiles", "Per-column profiles and warnings.")

    @property
    def working_data_(self) -> pd.DataFrame | None:
        """WO (None after a low_memory fit)."""
        return as_given(self.split_.working_data, self.split_.labels)

    @property
    def holdout_data_(self) -> pd.DataFrame | None:
        """HO, or None."""
        return as_given(self.split_.holdout_data, self.split_.labels)

    holdout_ = _from_stage("split_", "holdout", "Holdout.REAL or Holdout.NONE.")
    holdout_rows_ = _from_stage("split_", "holdout_rows", "Rows set aside (0 without a holdout).")
    codec_ = _from_stage("encoded_", "codec", "The encoding of the synthesised columns.")
    reduction_ = _from_stage("encoded_", "reduction", "The categorical reduction, or None.")
    imputed_table_ = _from_stage("encoded_", "model_table", "What the projection sees.")
    projection_ = _from_stage("projected_", "projection", "The fitted projection.")
    ncp_ = _from_stage("projected_", "ncp", "Latent dimensions used.")
    coordinates_ = _from_stage("projected_", "coordinates", "WO's first ncp_ latent coordinates.")
    relations_ = property(lambda self: list(self.split_.relations.relations),
                          doc="The relations the avatars keep (found on the originals or given to fit).")
    identifier_columns_ = property(lambda self: [form.name for form in self.split_.identifiers],
                                   doc="Identifier-like columns given new identifiers (no part in the synthesis).")

    def get_params(self) -> dict[str, object]:
        """The table's parameters, as scikit-learn's ``get_params`` gives them (plain values): the columns its links
        add (``link_columns_``) are data of a fit, not among them."""
        return {name: _plain(value) for name, value in self.parameters.table_values().items()}


for _name in Parameters.names():  # avatarizer.k, avatarizer.seed...: read from its parameters
    setattr(Avatarizer, _name, _from_stage("parameters", _name, f"The parameter {_name} (see :class:`Parameters`)."))


class Steps:
    """The clock of a fit's steps: each told to ``progress`` as it starts (with the share of the work done before
    it), timed into ``timings``, started by handing freed memory back to the system."""

    def __init__(self, progress: Progress | None = None, timings: dict[str, float] | None = None):
        self.progress, self.timings = progress, {} if timings is None else timings

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        if self.progress is not None:
            self.progress(name, STEP_SHARES[name])
        release_freed_memory()
        with timed(self.timings, name):
            yield


class Variants:
    """Fitted copies of a fitted :class:`Avatarizer` for other method parameters or another ``ncp``
    (:data:`VARIANT_PARAMETERS`), from its preparation (typing, holdout split, encoding, imputation, projection).

    Each copy equals ``Avatarizer(**{**base.get_params(), **variant}).fit(frame)`` (with the base's
    ``link_columns``): the random generator restarts
    from the state the base's synthesis started from, and another ``ncp`` takes the first axes of the same
    projection. The neighbours of each ``ncp`` are searched at ``largest_k``, the largest a caller will ask (or
    at a larger ``k`` asked), and cut for a smaller one; another ``ncp``'s first at the ``k`` asked. (Where exact duplicates tie at the
    k-th neighbour, the shared search may pick another of the tied rows than a search at that ``k`` would.) The base
    must keep its model table: not a ``low_memory`` fit.
    """

    def __init__(self, base: Avatarizer, largest_k: int = 0):
        if getattr(base, "_variant_state", None) is None or base.encoded_.model_table is None:
            raise ValueError("variants need a fitted Avatarizer that kept its model table (not a low_memory fit)")
        self.base, self.largest_k = base, largest_k
        self._neighbours: dict[int, Neighbours] = {}
        self._projected: dict[int, Projected] = {base.projected_.ncp: base.projected_}

    def fit(self, variant: Mapping[str, object]) -> Avatarizer:
        base = self.base
        copy = base._variant(variant)
        method, split = copy.method_, base.split_
        projected = self._projected_for(copy.parameters)
        split.check_rows(method)
        neighbours = self._neighbours_for(projected, method.k) if isinstance(method, Avatar) else None  # paired
        copy.seed_, copy._variant_state, copy.link_columns_ = base.seed_, base._variant_state, base.link_columns_
        copy.timings_s_ = dict(base.timings_s_)
        rng = np.random.default_rng()
        assert base._variant_state is not None  # checked when made
        rng.bit_generator.state = base._variant_state
        return copy.synthesize(method, (split, base.encoded_, projected), rng, Steps(timings=copy.timings_s_),
                               neighbours=neighbours)

    def _projected_for(self, parameters: Parameters) -> Projected:
        """The base's projection on the first axes of ``parameters``' ``ncp``."""
        projected = with_ncp(self.base.projected_, self.base.encoded_, parameters)
        return self._projected.setdefault(projected.ncp, projected)

    def search(self, projected: Projected, k: int) -> None:
        """The neighbours of ``projected``'s rows searched now at ``k`` (the largest the caller will ask)."""
        assert projected.coordinates is not None  # the base's: not a low_memory fit
        self._neighbours[projected.ncp] = neighbours_excluding_self(projected.coordinates, k)

    def _neighbours_for(self, projected: Projected, k: int) -> Neighbours:
        """The neighbours at ``k``, cut from the search of this ``ncp``: the base's ``ncp`` searched at
        ``largest_k`` on first need, one search for every ``k`` (from k = 10 with a budget reaching k = 50 at 50 000
        rows: one search of 0.8 s, where searching to twice each k asked made two, 0.7 s and 0.8 s); another
        ``ncp`` at the ``k`` first asked, the base's (a fix search tries a smaller ``ncp`` at the run's ``k`` and
        only then, rarely, at larger ones: at 50 000 rows of 4 axes, 0.16 s against 0.76 s at k = 100), then at
        ``largest_k`` when a larger ``k`` is asked."""
        found = self._neighbours.get(projected.ncp)
        if found is None or found[0].shape[1] < k:
            assert projected.coordinates is not None  # the base's: not a low_memory fit
            first_other = found is None and projected.ncp != self.base.projected_.ncp
            found = neighbours_excluding_self(projected.coordinates, k if first_other else max(k, self.largest_k))
            self._neighbours[projected.ncp] = found
        return found[0][:, :k], found[1][:, :k]


def _plain(value: object) -> object:
    """A parameter value as JSON can hold it."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (list, tuple)):
        return list(value)
    return value
