"""What the metrics of one set of avatars are computed from, shared by every metric module (SPEC sections 5, 6).

A metric module's ``compute`` takes a :class:`SignalContext` or a :class:`PrivacyContext`; the quantities several
privacy metrics share (the counts of closer avatars, the two nearest originals of each avatar, the avatars' rows
made comparable) are computed once, on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from core.engine.encoding import datetime_microseconds, numeric_values
from core.engine.schema import Kind
from core.metrics.local_cloaking import CloserAvatars, count_closer_avatars
from core.metrics.space import MetricSpace

NOT_PAIRED = "Not applicable: it needs each avatar paired with the original it was made from."


@dataclass(frozen=True)
class SignalContext:
    """WO, HO and WA (SPEC section 5), typed, with the projection fitted on WO (``space``)."""

    working: pd.DataFrame
    holdout: pd.DataFrame
    avatars: pd.DataFrame
    kinds: Mapping[str, Kind]
    space: MetricSpace


@dataclass(frozen=True)
class PrivacyReference:
    """The originals' side of the privacy metrics, computed once for any number of avatar sets (a sweep)."""

    coordinates: np.ndarray
    tree: cKDTree | None  # over the coordinates; None below two originals
    kinds: Mapping[str, Kind]
    rows: pd.DataFrame  # typed values, comparable with ``==`` (see :func:`comparable`)
    row_hashes: np.ndarray
    unique_shares: dict[str, float]  # u_v: distinct values of v / originals

    @classmethod
    def of(cls, coordinates: np.ndarray, originals: pd.DataFrame, kinds: Mapping[str, Kind]) -> PrivacyReference:
        rows = comparable(originals, kinds)
        return cls(
            coordinates=coordinates,
            tree=cKDTree(coordinates) if len(coordinates) >= 2 else None,
            kinds=kinds,
            rows=rows,
            row_hashes=pd.util.hash_pandas_object(rows, index=False).to_numpy(),
            unique_shares={name: rows[name].nunique(dropna=False) / len(rows) for name in rows.columns},
        )


class PrivacyContext:
    """The originals' side (``reference``) and one set of avatars, in the same latent space (SPEC section 6).

    With ``paired``, avatar ``i`` was made from original ``i``; without, the metrics that need pairing are not
    applicable, for ``unpaired_reason``.
    """

    def __init__(self, reference: PrivacyReference, avatar_coordinates: np.ndarray, avatars: pd.DataFrame,
                 paired: bool, unpaired_reason: str = NOT_PAIRED):
        self.reference, self.avatar_coordinates, self.avatars = reference, avatar_coordinates, avatars
        self.paired, self.unpaired_reason = paired, unpaired_reason

    @cached_property
    def closer(self) -> CloserAvatars:
        """Per original, the avatars strictly closer than its own (paired avatars only)."""
        return count_closer_avatars(self.reference.coordinates, self.avatar_coordinates)

    @cached_property
    def nearest_two(self) -> tuple[np.ndarray, np.ndarray]:
        """Each avatar's distances to its nearest and second-nearest originals."""
        distances, _ = self.reference.tree.query(self.avatar_coordinates, k=2, workers=-1)
        return distances[:, 0], distances[:, 1]

    @cached_property
    def avatar_rows(self) -> pd.DataFrame:
        """The avatars' typed values, comparable with the originals' (``reference.rows``)."""
        return comparable(self.avatars, self.reference.kinds)


def comparable(frame: pd.DataFrame, kinds: Mapping[str, Kind]) -> pd.DataFrame:
    """Columns whose ``==`` and hashes compare typed values, missing equal to missing."""
    columns = {}
    for name in frame.columns:
        column = frame[name]
        if kinds[name] is Kind.CATEGORICAL:
            labels = np.append(column.cat.categories.astype(str).to_numpy(dtype=object), "\x00missing")
            columns[name] = labels[column.cat.codes.to_numpy()]  # code -1: missing
        elif pd.api.types.is_datetime64_any_dtype(column):
            columns[name] = np.where(column.isna().to_numpy(), np.iinfo(np.int64).min, datetime_microseconds(column))
        else:
            values = numeric_values(column)
            columns[name] = np.where(np.isnan(values), np.inf * -1, values)  # -inf stands for missing
    return pd.DataFrame(columns)
