"""The pipeline's steps (SPEC section 2) as functions from one typed stage to the next, composed by the fit in memory
(:class:`~core.engine.pipeline.Avatarizer`) and by a batch among several (:mod:`core.engine.batched`), each with
the decisions it takes on the whole table given:

    frame -> :class:`TypedTable` (:func:`type_table`) -> :class:`SplitTable`, the holdout set aside
    (:func:`split_table`) -> :class:`Encoded`, encoded, indicated, imputed, reduced (:func:`encode`,
    :meth:`Encoded.reduced`) -> :class:`Projected` (:func:`project`) -> the method's synthetic rows
    (:mod:`core.engine.methods`) -> :class:`Synthesized`, the avatars decoded (:func:`decode`).

One ``numpy.random.Generator`` is passed through in that order: the split, the imputation, the synthesis, the
shuffle draw from it, so the same seed gives the same avatars whoever composes the steps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.dataset.relations import Relation, RelationsAsked
from core.engine.encoding import EncodedTable, TableCodec
from core.engine.identifiers import IdentifierForm
from core.engine.imputation import Indicators, add_indicators, impute, restore_indicated
from core.engine.kept_relations import KeptRelations
from core.engine.methods import Method
from core.engine.neighbours import NeighbourTree
from core.engine.parameters import DEFAULT_NCP, Parameters
from core.engine.projection import Projection
from core.engine.reduction import CategoricalReduction
from core.engine.schema import MANY_MODALITIES, ColumnProfile
from core.engine.split import Holdout, split_holdout
from core.engine.table_typing import TableTyping, type_frame
from core.errors import InputError
from core.i18n import _, number
from core.validation import check_whole_number


@dataclass(frozen=True)
class TypedTable:
    """The originals converted to their kinds, the decisions on their columns, and the user's column labels when
    one was not a string (else None: the engine names columns by ``str(label)``)."""

    frame: pd.DataFrame
    typing: TableTyping
    labels: tuple | None = None


@dataclass
class SplitTable:
    """The typed originals avatarized (``working_data``, WO) and set aside (``holdout_data``, HO, or None; SPEC
    section 5); ``excluded`` the columns set aside and re-attached afterwards (their originals in
    ``excluded_originals``); ``identifiers`` the identifier-like columns that take no part and get new identifiers.
    A ``low_memory`` fit sets ``working_data`` and ``holdout_data`` to None once encoded."""

    kinds: dict[str, Kind]
    profiles: list[ColumnProfile]
    columns: list[str]
    excluded: list[str]
    working_data: pd.DataFrame | None
    holdout_data: pd.DataFrame | None
    excluded_originals: pd.DataFrame
    n_total: int
    identifiers: list[IdentifierForm]
    labels: tuple | None = None
    relations: KeptRelations = field(default_factory=KeptRelations)
    texts: dict[str, Any] = field(default_factory=dict)  # the avatars' text columns given back so (see decode)

    @property
    def set_apart(self) -> list[str]:
        """The columns that take no part in the synthesis: excluded ones and identifiers."""
        return [*self.excluded, *(form.name for form in self.identifiers)]

    @property
    def holdout(self) -> Holdout:
        """``Holdout.REAL`` when a holdout half was set aside, else ``Holdout.NONE``."""
        return Holdout.REAL if self.holdout_rows else Holdout.NONE

    @property
    def holdout_rows(self) -> int:
        return self.n_total - self.n_working

    @property
    def n_working(self) -> int:
        """The rows avatarized (known after the originals are let go)."""
        return len(self.excluded_originals)

    def synthesised(self) -> pd.DataFrame:
        """WO's columns as the synthesis makes them (without those set apart, the relations' derived columns, and
        each order's later column as a difference: see :class:`~core.engine.kept_relations.KeptRelations`)."""
        assert self.working_data is not None  # read before the originals are let go (encode)
        return self.relations.synthesised(self.working_data.drop(columns=self.set_apart))

    @property
    def synthesis_kinds(self) -> dict[str, Kind]:
        """The kinds of the columns the synthesis makes (an order's difference is a number)."""
        return self.relations.synthesis_kinds(self.kinds)

    def check_rows(self, method: Method) -> None:
        """The method's parameters against the rows avatarized."""
        method.check_rows(self.n_working, self.n_total, self.holdout is Holdout.REAL)


@dataclass
class Encoded:
    """WO encoded (``codec``), with its indicators of missing values and spikes (``indicators`` says where they
    are), imputed (``complete``); ``model_table`` what the projection sees: ``complete`` after the categorical
    ``reduction`` when it is on (set by :meth:`reduced`)."""

    codec: TableCodec
    indicators: Indicators
    complete: EncodedTable | None
    reduction: CategoricalReduction | None = None
    model_table: EncodedTable | None = None

    def reduced(self, reduction: CategoricalReduction | None) -> Encoded:
        """With the fitted ``reduction`` (None: none) and its model table."""
        assert self.complete is not None  # let go only once decoded
        self.reduction = reduction
        self.model_table = reduction.transform(self.complete) if reduction else self.complete
        return self


@dataclass
class Projected:
    """The fitted projection of the model table and its first ``ncp`` latent coordinates."""

    projection: Projection
    ncp: int
    coordinates: np.ndarray | None


@dataclass(frozen=True)
class Synthesized:
    """The avatars, shuffled, with the user's column labels; ``paired_order`` puts them back in WO's order (avatar
    ``i`` made from original ``i``: sensitive), None for a method whose avatars are not paired."""

    avatars: pd.DataFrame
    paired_order: np.ndarray | None


def seed_generator(seed: int, stream: int | None = None) -> np.random.Generator:
    """The generator of every random step of a fit: of the ``seed``, or of its ``stream`` for one batch of many
    (batch 0 draws from the seed itself, so one batch is the fit in memory)."""
    return np.random.default_rng(seed if not stream else [seed, stream])


def drawn_seed() -> int:
    """A seed drawn from the system's entropy (none was given), below 2^32."""
    entropy = np.random.SeedSequence().entropy
    assert isinstance(entropy, int)  # drawn, not given: a whole number
    return int(entropy % 2**32)


def type_table(frame: pd.DataFrame, parameters: Parameters, keys: Sequence[str] = (), in_place: bool = False,
               relations: Sequence[Relation] | RelationsAsked = RelationsAsked()) -> TypedTable:
    """``frame`` checked and typed (``in_place``: its columns converted in ``frame`` itself); ``keys`` are
    identifiers whatever their kind, ``relations`` those to keep, or what the table's description asks of them (see
    :func:`~core.engine.table_typing.type_frame`)."""
    frame, labels = _check_frame(frame, in_place)
    typed, typing = type_frame(frame, parameters.column_kinds, parameters.exclude_variable_names,
                               parameters.column_weights, in_place=in_place, keys=keys, relations=relations)
    return TypedTable(typed, typing, labels)


def split_table(typed: TypedTable, parameters: Parameters, rng: np.random.Generator) -> SplitTable:
    """The holdout half set aside (SPEC section 5) when ``parameters.holdout`` and the table has at least
    ``holdout_min_rows`` rows."""
    frame, typing = typed.frame, typed.typing
    if bool(parameters.holdout) and len(frame) >= parameters.holdout_min_rows:
        working_rows, holdout_rows = split_holdout(len(frame), rng)
        working, holdout = (frame.iloc[rows].reset_index(drop=True) for rows in (working_rows, holdout_rows))
    else:
        working, holdout = frame.reset_index(drop=True), None
    return SplitTable(
        kinds=typing.kinds, profiles=typing.profiles, columns=list(frame.columns), excluded=typing.excluded,
        working_data=working, holdout_data=holdout, excluded_originals=working[typing.excluded],
        n_total=len(frame), identifiers=typing.identifiers, labels=typed.labels, relations=typing.relations,
        texts=typing.texts,
    )


def encode(split: SplitTable, parameters: Parameters, rng: np.random.Generator, *, release: bool = False,
           codec: TableCodec | None = None, layout: Indicators | None = None) -> Encoded:
    """WO encoded, indicated and imputed (not reduced: see :meth:`Encoded.reduced`); ``release`` lets the
    originals go here. ``codec`` and ``layout``: decided on the whole table when this is one batch of it."""
    synthesised = split.synthesised()
    if release:
        split.working_data = split.holdout_data = None
    codec = codec or TableCodec(split.synthesis_kinds).fit(synthesised)
    encoded = codec.encode(synthesised)
    del synthesised  # with release, the last reference to the originals' columns
    encoded, indicators = add_indicators(encoded, layout)
    return Encoded(codec, indicators, impute(encoded, parameters.imputation, rng))


def reduction_plan(parameters: Parameters, categories: tuple[np.ndarray, ...]) -> CategoricalReduction | None:
    """The categorical reduction to use, unfitted: on, off, or by default only for the categoricals of more than
    ``MANY_MODALITIES`` modalities."""
    if parameters.use_categorical_reduction is None:
        if all(len(modalities) <= MANY_MODALITIES for modalities in categories):
            return None
        return CategoricalReduction(min_modalities=MANY_MODALITIES + 1)
    return CategoricalReduction() if parameters.use_categorical_reduction else None


def fitted_reduction(parameters: Parameters, complete: EncodedTable) -> CategoricalReduction | None:
    """The categorical reduction of ``complete`` (see :func:`reduction_plan`), fitted on it."""
    plan = reduction_plan(parameters, complete.categories)
    return plan.fit(complete) if plan else None


def model_weights(parameters: Parameters, reduction: CategoricalReduction | None, relations: KeptRelations
                  ) -> dict[str, float]:
    """The weights of the model table's variables: the user's, a derived column's passed to its sources
    (:meth:`~core.engine.kept_relations.KeptRelations.projection_weights`), and the reduced variables' embedded
    columns' (a user weight on a reduced variable applies to its embedded columns, scaled by theirs)."""
    weights = {**(reduction.column_weights_ if reduction else {}),
               **(relations.projection_weights(parameters.column_weights) or {})}
    for embedding in reduction.embeddings_ if reduction else ():
        if embedding.name in weights:
            user_weight = weights.pop(embedding.name)
            for column in embedding.column_names():
                weights[column] *= user_weight
    return weights


def check_ncp(ncp: object) -> None:
    """A given ``ncp`` is a whole number of at least 1 (None: the default)."""
    if ncp is not None:
        check_whole_number("ncp", ncp, minimum=1, hint=_("ncp is the number of latent dimensions, for example 5."))


def resolve_ncp(parameters: Parameters, n_scaled_columns: int) -> int:
    """The latent dimensions used: ``parameters.ncp``, at most the scaled columns; by default
    ``min(DEFAULT_NCP, scaled columns)``."""
    if parameters.ncp is None:
        return min(DEFAULT_NCP, n_scaled_columns)
    if parameters.ncp > n_scaled_columns:
        raise InputError(_(
            "ncp must be at most {columns}, the number of scaled columns of this table, got {ncp}."
        ).format(columns=number(n_scaled_columns), ncp=number(parameters.ncp)))
    return int(parameters.ncp)


def project(encoded: Encoded, parameters: Parameters, relations: KeptRelations, projection: Projection | None = None
            ) -> Projected:
    """The projection of the model table (``projection``: fitted on the whole table when this is one batch of it;
    the weights of :func:`model_weights` with the ``relations`` kept) and the model table's coordinates on its first
    ``ncp`` axes."""
    model_table = encoded.model_table
    assert model_table is not None  # let go only once decoded
    projection = projection or Projection(model_weights(parameters, encoded.reduction, relations)).fit(model_table)
    ncp = resolve_ncp(parameters, len(projection.components_))
    return Projected(projection, ncp, projection.transform(model_table, ncp))


def with_ncp(projected: Projected, encoded: Encoded, parameters: Parameters) -> Projected:
    """The same projection on the first ``parameters.ncp`` axes (itself when that is its ``ncp``)."""
    ncp = resolve_ncp(parameters, len(projected.projection.components_))
    if ncp == projected.ncp:
        return projected
    assert encoded.model_table is not None  # kept by a fit that makes variants (not low_memory)
    return Projected(projected.projection, ncp, projected.projection.transform(encoded.model_table, ncp))


def decode(
    synthetic: EncodedTable,
    method: Method,
    stages: tuple[SplitTable, Encoded, Projected],
    parameters: Parameters,
    rng: np.random.Generator,
    *,
    release: bool = False,
    numbering: tuple[int, int | None] = (0, None),
) -> Synthesized:
    """The avatars of the ``synthetic`` rows of the model table: the reduction inverted, missing values restored,
    shuffled (a paired method's order kept), decoded, the excluded columns re-attached, new identifiers
    (``numbering``: those of one batch start after the avatars of the batches before it, and are written for the
    total; see :meth:`~core.engine.identifiers.IdentifierForm.new_values`). ``release`` lets the model table and
    the coordinates go once no longer needed."""
    split, encoded, projected = stages
    complete = encoded.complete
    assert complete is not None  # let go below (release), after its last use
    sources = _excluded_sources(synthetic, projected, parameters) if split.excluded else None  # before release
    decoded = synthetic if encoded.reduction is None else encoded.reduction.inverse_transform(synthetic, complete)
    restored, plain = _restored(decoded, encoded, complete)
    del synthetic, complete, decoded
    if release:
        encoded.complete = encoded.model_table = projected.coordinates = None
    paired_order = None
    if method.paired:  # shuffled before decoding: one frame, the pairing kept as an order
        order = rng.permutation(restored.n_rows)
        _permute_rows(restored, order)
        sources = None if sources is None else sources[order]
        plain = None if plain is None else plain[order]
        paired_order = np.argsort(order)
    avatars = encoded.codec.decode(restored, plain)
    if sources is not None:  # split.excluded
        avatars = _reattached(avatars, split, sources)
    for form in split.identifiers:
        avatars[form.name] = form.new_values(len(avatars), *numbering)
    avatars = as_text(split.relations.restored(avatars), split.texts)
    return Synthesized(as_given(avatars[split.columns], split.labels), paired_order)


def _restored(decoded: EncodedTable, encoded: Encoded, complete: EncodedTable
              ) -> tuple[EncodedTable, np.ndarray | None]:
    """``decoded`` with its spikes and missing values restored on the originals' grid, and the rows to write
    with their decimals only: those the grid would make a row fewer than 5 originals hold (``complete``, their
    indicators restored; :meth:`~core.engine.encoding.TableCodec.made_rare`), their spikes restored as with the
    decimals alone (None: no grid departs from the decimals). ``decoded`` is overwritten."""
    codec = encoded.codec
    if not codec.departs():
        return restore_indicated(decoded, encoded.indicators, codec.grids()), None
    unrestored = decoded.with_arrays(decoded.numeric.copy(), decoded.codes.copy())
    restored = restore_indicated(decoded, encoded.indicators, codec.grids())
    originals = restore_indicated(complete.with_arrays(complete.numeric.copy(), complete.codes.copy()),
                                  encoded.indicators)
    plain = codec.made_rare(restored, originals)
    rows = np.flatnonzero(plain)
    restored.numeric[rows] = restore_indicated(unrestored.take(rows), encoded.indicators,
                                               codec.grids(plain=True)).numeric
    return restored, plain


def as_text(avatars: pd.DataFrame, texts: Mapping[str, Any]) -> pd.DataFrame:
    """The avatars' categorical columns given as text (``texts``: their given dtype, ``object`` or ``str``) given
    back so, their values unchanged (issue 47: ``Avatarizer().fit(frame).avatars_`` gave ``category`` for ``str``
    columns), new identifiers too; the originals the engine keeps (``working_data_``) stay typed, as the metrics
    read them."""
    for name, dtype in texts.items():
        column = avatars[name] if name in avatars else None
        if column is None or column.dtype == dtype:
            continue
        if not isinstance(column.dtype, pd.CategoricalDtype):  # new identifiers, made as Python strings
            if pd.api.types.is_object_dtype(column.dtype):
                avatars[name] = column.astype(dtype)
            continue
        if pd.api.types.is_object_dtype(dtype):
            avatars[name] = column.astype(object)
        else:  # each category's text converted once, then taken (astype converts every row: 13x slower)
            values = pd.array(column.cat.categories, dtype=dtype).take(column.cat.codes.to_numpy(), allow_fill=True)
            avatars[name] = pd.Series(values, index=column.index, name=column.name)
    return avatars


def _excluded_sources(synthetic: EncodedTable, projected: Projected, parameters: Parameters) -> np.ndarray:
    """The original each avatar copies its excluded values from: the nearest in latent space, or its own."""
    if parameters.exclude_replacement_strategy == "row_order":
        return np.arange(synthetic.n_rows)
    avatar_coordinates = projected.projection.transform(synthetic, projected.ncp)
    assert projected.coordinates is not None  # let go only once decoded
    return NeighbourTree(projected.coordinates).query(avatar_coordinates, 1)[1][:, 0]


def _reattached(avatars: pd.DataFrame, split: SplitTable, sources: np.ndarray) -> pd.DataFrame:
    """Excluded variables copied from the originals ``sources`` gives."""
    part = split.excluded_originals
    codec = TableCodec(split.kinds).fit(part)
    copied = codec.decode(codec.encode(part).take(sources))
    return pd.concat([avatars, copied], axis=1)


def _permute_rows(table: EncodedTable, order: np.ndarray) -> None:
    """Rows of ``table`` put in ``order``, in place, one column at a time (no copy of the whole table)."""
    for values in (table.numeric, table.codes):
        for j in range(values.shape[1]):
            values[:, j] = values[order, j]


def as_given(frame: pd.DataFrame | None, labels: tuple | None) -> pd.DataFrame | None:
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
