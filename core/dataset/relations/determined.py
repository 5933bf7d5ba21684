"""A column determined by a categorical one: a code and its label, a town and its region (issue 30)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from core.dataset.relations.base import CHANCE, log_chance_of_determination, same_missing
from core.dataset.relations.relation import Derivation, unequal
from core.i18n import _


@dataclass(frozen=True)
class Determined(Derivation):
    """``target`` = ``mapping[source]`` on every row; missing exactly where ``source`` is."""

    source: str
    target: str
    mapping: tuple[tuple[Any, Any], ...]
    kind = "determined"

    def _computed(self, frame: pd.DataFrame) -> pd.Series:
        return frame[self.source].map(dict(self.mapping))

    def breaking(self, frame: pd.DataFrame) -> np.ndarray:
        return unequal(self._computed(frame), frame[self.target])

    def apply(self, frame: pd.DataFrame) -> pd.DataFrame:
        computed = self._computed(frame)
        if not computed.isna().any():
            computed = computed.infer_objects()
        return frame.assign(**{self.target: computed})

    def sentence(self) -> str:
        return _("'{target}' is set by '{source}' ({count} values of '{source}', each with one '{target}')").format(
            target=self.target, source=self.source, count=len(self.mapping))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "target": self.target}

    @classmethod
    def learned(cls, frame: pd.DataFrame, source: str, target: str) -> Determined | None:
        """The relation if ``frame`` shows it on every row (and not by chance), else None."""
        if not same_missing(frame[source], frame[target]):
            return None
        pairs = frame[[source, target]].dropna()
        if pairs.empty:
            return None
        by_source = pairs.groupby(source, sort=True, observed=True)[target]
        if (by_source.nunique() != 1).any():
            return None
        shares = pairs[target].value_counts(normalize=True).to_numpy()
        if len(shares) < 2 or log_chance_of_determination(by_source.size().to_numpy(), shares) > CHANCE:
            return None
        return cls(source, target, tuple(by_source.first().items()))
