"""A total equal to the sum of two or more columns on every row (issue 30)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from core.dataset.relations.base import decimals, tolerance
from core.dataset.relations.relation import Relation
from core.i18n import _


@dataclass(frozen=True)
class Total(Relation):
    """``total`` = the sum of ``parts``, rounded to the total's decimals; missing where a part is."""

    total: str
    parts: tuple[str, ...]
    places: int = 12
    integer: bool = False  # the total is written as integers
    kind = "total"

    @property
    def columns(self) -> tuple[str, ...]:
        return (*self.parts, self.total)

    @property
    def derived(self) -> str:
        return self.total

    def _computed(self, frame: pd.DataFrame) -> np.ndarray:
        computed = sum(pd.to_numeric(frame[part]).to_numpy(dtype=float) for part in self.parts)
        return np.round(computed, self.places) if self.places < 12 else computed

    def breaking(self, frame: pd.DataFrame) -> np.ndarray:
        computed = self._computed(frame)
        actual = pd.to_numeric(frame[self.total]).to_numpy(dtype=float)
        return ~((np.abs(computed - actual) <= tolerance(actual)) | (np.isnan(computed) & np.isnan(actual)))

    def apply(self, frame: pd.DataFrame) -> pd.DataFrame:
        computed = self._computed(frame)
        if self.integer and not np.isnan(computed).any():
            computed = computed.astype("int64")
        return frame.assign(**{self.total: computed})

    def sentence(self) -> str:
        return _("'{total}' = {parts} on every row").format(
            total=self.total, parts=" + ".join(f"'{part}'" for part in self.parts))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "total": self.total, "parts": list(self.parts)}

    @classmethod
    def learned(cls, frame: pd.DataFrame, total: str, parts: tuple[str, ...]) -> Total | None:
        values = frame[total]
        relation = cls(total, parts, decimals(pd.to_numeric(values).to_numpy(dtype=float)),
                       pd.api.types.is_integer_dtype(values))
        return None if relation.breaking(frame).any() else relation
