"""The table as the relations read it (issue 30): its columns' names and rows, a sample of its rows, some of its
columns on every row. A frame in memory (:class:`FrameColumns`), or the typed column files of a batch run
(:class:`~core.engine.sources.TypedColumns`), read one column at a time, as typing reads them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pandas as pd


class TableColumns(Protocol):
    """What finding, declaring and keeping a relation read of a table."""

    @property
    def names(self) -> list[str]: ...

    @property
    def n_rows(self) -> int: ...

    def sample(self, positions: np.ndarray) -> pd.DataFrame:
        """The rows at ``positions`` (sorted), every column."""

    def whole(self, names: Sequence[str]) -> pd.DataFrame:
        """Every row of (at least) the columns ``names``."""

    def distinct(self, name: str) -> int:
        """The distinct values of column ``name`` on every row (a missing value not counted)."""


@dataclass(frozen=True)
class FrameColumns:
    """A table in memory."""

    frame: pd.DataFrame

    @property
    def names(self) -> list[str]:
        return list(self.frame.columns)

    @property
    def n_rows(self) -> int:
        return len(self.frame)

    def sample(self, positions: np.ndarray) -> pd.DataFrame:
        return self.frame.iloc[positions]

    def whole(self, names: Sequence[str]) -> pd.DataFrame:
        return self.frame  # every column: no copy, the relations read theirs

    def distinct(self, name: str) -> int:
        return int(self.frame[name].nunique())


def table_columns(table: pd.DataFrame | TableColumns) -> TableColumns:
    """``table`` as the relations read it."""
    return FrameColumns(table) if isinstance(table, pd.DataFrame) else table
