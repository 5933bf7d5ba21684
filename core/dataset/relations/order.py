"""An order between two numbers or dates on every row: admission <= discharge, start <= end (issue 30). The
synthesis keeps it by synthesizing the non-negative difference in place of the later column."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from core.dataset.relations.base import CHANCE, is_date
from core.dataset.relations.relation import Relation
from core.i18n import _

MIN_ROWS = 20


def as_numbers(values: pd.Series) -> np.ndarray:
    """Numbers, or dates as nanoseconds, as floats with NaN for a missing value."""
    if is_date(values):
        numbers = values.to_numpy(dtype="datetime64[ns]").astype("int64").astype(float)
        numbers[values.isna().to_numpy()] = np.nan
        return numbers
    return pd.to_numeric(values).to_numpy(dtype=float)


@dataclass(frozen=True)
class Order(Relation):
    """``low`` <= ``high`` wherever both are given, and ``high`` missing wherever ``low`` is."""

    low: str
    high: str
    kind = "order"

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.low, self.high)

    @property
    def computed(self) -> str:
        return self.high

    def breaking(self, frame: pd.DataFrame) -> np.ndarray:
        low, high = as_numbers(frame[self.low]), as_numbers(frame[self.high])
        with np.errstate(invalid="ignore"):
            return (low > high) | (np.isnan(low) & ~np.isnan(high))

    def sentence(self) -> str:
        return _("'{low}' <= '{high}' on every row").format(low=self.low, high=self.high)

    def how_kept(self) -> str:
        return _("'{high}' synthesized as its difference from '{low}', never below it").format(
            high=self.high, low=self.low)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "low": self.low, "high": self.high}

    @classmethod
    def learned(cls, frame: pd.DataFrame, low: str, high: str) -> Order | None:
        """The order if it holds on every row, the ranges overlap (else any synthesis in range keeps it) and
        independent columns would hold it with odds below the chance bound."""
        lows, highs = as_numbers(frame[low]), as_numbers(frame[high])
        both = ~np.isnan(lows) & ~np.isnan(highs)
        if both.sum() < MIN_ROWS or (np.isnan(lows) & ~np.isnan(highs)).any() or (lows[both] > highs[both]).any():
            return None
        if (lows[both] == highs[both]).all() or lows[both].max() <= highs[both].min():
            return None
        # under independence, P(low <= high) = mean over highs of the share of lows at or below them
        independent = np.searchsorted(np.sort(lows[both]), highs[both], side="right").mean() / both.sum()
        if independent >= 1 or both.sum() * np.log(independent) > CHANCE:
            return None
        return cls(low, high)
