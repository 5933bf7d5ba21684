"""The latent space the metrics work in: a projection fitted on originals, a missing value at the centroid."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.engine.encoding import EncodedTable, TableCodec
from core.engine.projection import Projection
from core.engine.reduction import CategoricalReduction
from core.engine.schema import MANY_MODALITIES, with_text_names
from core.metrics.binning import SortedColumns

LAST_ENCODED = "last encoded"


def kept_by_identity(store: dict[Hashable, tuple[Any, Any]], key: Hashable, thing: object,
                     compute: Callable[[], Any]) -> Any:
    """What ``compute`` returns about ``thing`` (a frame, an array), computed once while that same object comes back:
    kept in ``store`` under ``key`` and the object's id, the object held beside it so that its id stays its own."""
    held = store.get((key, id(thing)))
    if held is None or held[0] is not thing:
        held = (thing, compute())
        store[(key, id(thing))] = held
    return held[1]
AXIS_BLOCK_VALUES = 2**22  # coordinates transformed at a time per sample (32 MB), whatever the row count


@dataclass(frozen=True)
class MetricSpace:
    """A projection fitted on ``frame``'s rows, and those rows encoded.

    A categorical with more than ``MANY_MODALITIES`` modalities is embedded by the categorical reduction, as the
    engine does by default (SPEC section 2 step 1), so that the space's cost stays bounded by the rows: one such
    variable weighs like one numeric column instead of adding a dimension per modality.
    """

    codec: TableCodec
    reduction: CategoricalReduction | None
    projection: Projection
    table: EncodedTable
    _kept: dict[Hashable, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def fit(cls, frame: pd.DataFrame, kinds: Mapping[str, Kind]) -> MetricSpace:
        codec = TableCodec(kinds).fit(frame)
        table = codec.encode(frame)
        reduction = None
        if any(len(modalities) > MANY_MODALITIES for modalities in table.categories):
            reduction = CategoricalReduction(min_modalities=MANY_MODALITIES + 1).fit(table)
            table = reduction.transform(table)
        weights = reduction.column_weights_ if reduction else None
        return cls(codec, reduction, Projection(weights).fit(table), table)

    def encode(self, frame: pd.DataFrame) -> EncodedTable:
        """Avatars coded as this space's own rows; the last frame's coding kept, read again when the same frame
        comes back (the signal and the privacy metrics score the same avatars in the originals' space)."""
        last = self._kept.get(LAST_ENCODED)
        if last is not None and last[0] is frame:
            return last[1]
        table = self.coded(frame)
        self._kept[LAST_ENCODED] = (frame, table)  # the frame held, so that ``is`` compares it and not a new one
        return table

    def coded(self, frame: pd.DataFrame) -> EncodedTable:
        """Other rows coded as this space's own, nothing kept."""
        table = self.codec.encode(frame)
        return self.reduction.transform(table) if self.reduction else table

    def forget_encoded(self) -> None:
        """The last frame's coding let go (:meth:`encode`), once its metrics are computed."""
        self._kept.pop(LAST_ENCODED, None)

    def kept_for(self, frame: pd.DataFrame, key: Hashable, compute: Callable[[], Any]) -> Any:
        """What ``compute`` returns about ``frame``, other rows than the space's own (the holdout), computed once
        while the same frame comes back (every setting of a fix search, of a sweep)."""
        return kept_by_identity(self._kept, key, frame, compute)

    def kept(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """What ``compute`` returns about these rows, computed once: a sweep scores many avatar sets against them."""
        if key not in self._kept:
            self._kept[key] = compute()
        return self._kept[key]

    def sorted_axes(self, axes: slice) -> SortedColumns:
        """Its own rows' coordinates on ``axes``, sorted; kept when all of them hold in one block of
        ``AXIS_BLOCK_VALUES`` (beyond, the multivariate Hellinger distance transforms a few axes at a time)."""
        def sort() -> SortedColumns:
            return SortedColumns.of(self.projection.transform(self.table, axes))

        if self.table.n_rows * self.projection.n_components_ > AXIS_BLOCK_VALUES:
            return sort()
        return self.kept(("sorted axes", axes.start, axes.stop), sort)


class MetricSpaces:
    """Spaces already fitted, by frame: a sweep scores many avatar sets against the same originals."""

    def __init__(self) -> None:
        self._held: dict[Hashable, tuple[Any, Any]] = {}

    def approximate_split(
        self, originals: pd.DataFrame, n_avatars: int, paired: bool, draw: Callable[[], tuple[np.ndarray, ...]]
    ) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray]:
        """WO and HO frames (the same objects on every call, so their spaces are reused), WA's rows and HO's."""
        def split() -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray]:
            working_rows, holdout_rows, avatar_rows = draw()
            return (originals.iloc[working_rows].reset_index(drop=True),
                    originals.iloc[holdout_rows].reset_index(drop=True), avatar_rows, holdout_rows)

        return kept_by_identity(self._held, ("split", n_avatars, paired), originals, split)

    def without(self, frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
        """``frame``, its columns named as the engine names them, without ``columns``: the same object for the same
        frame and columns on every call, so that the spaces fitted on it are reused."""
        def derived() -> pd.DataFrame:
            named = with_text_names(frame)
            return named.drop(columns=list(columns)) if columns else named

        return kept_by_identity(self._held, ("without", tuple(columns)), frame, derived)

    def of(self, frame: pd.DataFrame, kinds: Mapping[str, Kind]) -> MetricSpace:
        return kept_by_identity(self._held, "space", frame, lambda: MetricSpace.fit(frame, kinds))
