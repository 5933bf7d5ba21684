"""A categorical that cuts a number into intervals: a yes/no threshold (``low`` is 1 exactly when ``bwt`` < 2500)
or bands (an age band) (issue 30). Each cut is the roundest number between the groups the originals show."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from core.dataset.relations.base import CHANCE, MAX_GROUPS, log_chance_of_blocks, same_missing
from core.dataset.relations.relation import Derivation, unequal
from core.i18n import _


@dataclass(frozen=True)
class Intervals(Derivation):
    """``target`` = ``labels[i]`` where ``cuts[i-1]`` <= ``source`` < ``cuts[i]``; missing where ``source`` is."""

    source: str
    target: str
    cuts: tuple[float, ...]
    labels: tuple[Any, ...]
    kind = "intervals"

    def _computed(self, frame: pd.DataFrame) -> pd.Series:
        values = pd.to_numeric(frame[self.source]).to_numpy(dtype=float)
        labels = np.asarray(self.labels, dtype=object)[np.searchsorted(self.cuts, values, side="right")]
        computed = pd.Series(labels, index=frame.index, dtype=object)
        computed[np.isnan(values)] = np.nan
        return computed if computed.isna().any() else computed.infer_objects()

    def breaking(self, frame: pd.DataFrame) -> np.ndarray:
        return unequal(self._computed(frame), frame[self.target])

    def apply(self, frame: pd.DataFrame) -> pd.DataFrame:
        return frame.assign(**{self.target: self._computed(frame)})

    def sentence(self) -> str:
        if len(self.labels) == 2:
            return _("'{target}' is {low} exactly when '{source}' < {cut}, else {high}").format(
                target=self.target, source=self.source, cut=_number(self.cuts[0]), high=self.labels[1],
                low=self.labels[0])
        bands = ", ".join(
            f"{label} " + (_("below {cut}").format(cut=_number(self.cuts[0])) if i == 0 else
                           _("from {cut}").format(cut=_number(self.cuts[i - 1])))
            for i, label in enumerate(self.labels))
        return _("'{target}' cuts '{source}' into intervals: {bands}").format(
            target=self.target, source=self.source, bands=bands)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "target": self.target, "cuts": list(self.cuts)}

    @classmethod
    def learned(cls, frame: pd.DataFrame, source: str, target: str) -> Intervals | None:
        """The relation if every value of ``target`` holds one interval of ``source`` apart from the others'."""
        if not same_missing(frame[source], frame[target]):
            return None
        pairs = frame[[source, target]].dropna()
        groups = pairs.groupby(target, observed=True)[source].agg(["min", "max", "size"]).sort_values("min")
        if not 2 <= len(groups) <= MAX_GROUPS:
            return None
        lows, highs = groups["min"].to_numpy(dtype=float), groups["max"].to_numpy(dtype=float)
        if not (highs[:-1] < lows[1:]).all() or log_chance_of_blocks(groups["size"].to_numpy()) > CHANCE:
            return None
        cuts = tuple(roundest_between(low, high) for low, high in zip(highs[:-1], lows[1:], strict=True))
        return cls(source, target, cuts, tuple(groups.index))


def roundest_between(below: float, upto: float) -> float:
    """The number with the fewest significant digits in (``below``, ``upto``]: 2500 between 2495 and 2523."""
    span = max(abs(below), abs(upto), 1e-300)
    for exponent in range(math.ceil(math.log10(span)) + 1, -13, -1):
        for step in (10.0**exponent * 5, 10.0**exponent * 2, 10.0**exponent):
            cut = math.floor(upto / step) * step
            if below < cut <= upto:
                return float(round(cut, 12))
    return float(upto)


def _number(value: float) -> str:
    return f"{value:g}" if value != int(value) else f"{int(value)}"
