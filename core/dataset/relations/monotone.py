"""A number that is a strictly monotone function of another (issue 30): ``logwage`` = log(``wage``), a unit
conversion, or any monotone map, kept through the originals' pairs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from core.dataset.relations.base import decimals, same_missing, tolerance
from core.dataset.relations.relation import Derivation
from core.i18n import _

MIN_DISTINCT = 10  # fewer distinct values are a categorical's business (Determined)
FORMS: dict[str, Callable[[np.ndarray], np.ndarray]] = {  # in order of preference when both directions hold
    "identity": lambda x: x, "log": np.log, "sqrt": np.sqrt, "log10": np.log10, "log2": np.log2, "exp": np.exp,
}


@dataclass(frozen=True)
class Monotone(Derivation):
    """``target`` = ``slope`` x form(``source``) + ``intercept`` when a form fits to the target's decimals, else
    the originals' pairs interpolated (``form`` "pairs"); rounded to the target's decimals."""

    source: str
    target: str
    form: str
    slope: float = 1.0
    intercept: float = 0.0
    places: int = 12
    integer: bool = False  # the target is written as integers
    pairs: tuple[np.ndarray, np.ndarray] | None = field(default=None, compare=False, repr=False)
    kind = "monotone"

    def _computed(self, frame: pd.DataFrame) -> np.ndarray:
        values = pd.to_numeric(frame[self.source]).to_numpy(dtype=float)
        if self.form == "pairs":
            assert self.pairs is not None, "a monotone relation kept through pairs is learned with them"
            xs, ys = self.pairs
            computed = np.interp(values, xs, ys)
        else:
            with np.errstate(all="ignore"):
                computed = self.slope * FORMS[self.form](values) + self.intercept
        return np.round(computed, self.places) if self.places < 12 else computed

    def breaking(self, frame: pd.DataFrame) -> np.ndarray:
        computed = self._computed(frame)
        actual = pd.to_numeric(frame[self.target]).to_numpy(dtype=float)
        close = np.abs(computed - actual) <= tolerance(actual)
        return ~(close | (np.isnan(computed) & np.isnan(actual)))

    def apply(self, frame: pd.DataFrame) -> pd.DataFrame:
        computed = self._computed(frame)
        if self.integer and not np.isnan(computed).any():
            computed = computed.astype("int64")
        return frame.assign(**{self.target: computed})

    def sentence(self) -> str:
        if self.form == "pairs":
            return _("'{target}' rises or falls with '{source}' on every row (kept through the originals' "
                     "pairs)").format(target=self.target, source=self.source)
        inner = f"'{self.source}'" if self.form == "identity" else f"{self.form}('{self.source}')"
        formula = inner if self.slope == 1 else f"{self.slope:.6g} × {inner}"
        formula += "" if self.intercept == 0 else f" {'+' if self.intercept > 0 else '-'} {abs(self.intercept):.6g}"
        return _("'{target}' = {formula} on every row").format(target=self.target, formula=formula)

    def to_dict(self) -> dict[str, Any]:
        entry = {"kind": self.kind, "source": self.source, "target": self.target, "form": self.form}
        return entry | ({} if self.form == "pairs" else {"slope": self.slope, "intercept": self.intercept})

    @classmethod
    def learned(cls, frame: pd.DataFrame, source: str, target: str) -> Monotone | None:
        """The relation if ``target`` is one value for each ``source`` and strictly monotone in it."""
        if not same_missing(frame[source], frame[target]):
            return None
        pairs = frame[[source, target]].dropna().astype(float).drop_duplicates()
        xs, ys = pairs[source].to_numpy(), pairs[target].to_numpy()
        if len(np.unique(xs)) != len(xs) or len(xs) < MIN_DISTINCT or not np.isfinite(pairs.to_numpy()).all():
            return None
        order = np.argsort(xs)
        xs, ys = xs[order], ys[order]
        steps = np.diff(ys)
        if not ((steps > 0).all() or (steps < 0).all()):
            return None
        places, allowed = decimals(ys), tolerance(ys)
        integer = pd.api.types.is_integer_dtype(frame[target])
        for form, function in FORMS.items():
            with np.errstate(all="ignore"):
                transformed = function(xs)
            if not np.isfinite(transformed).all() or np.ptp(transformed) == 0:
                continue
            slope, intercept = (float(value) for value in np.polyfit(transformed, ys, 1))
            for slope, intercept in [(1.0, 0.0), *((_tidy(slope, digits), _tidy(intercept, digits))
                                                   for digits in (6, 10))]:
                fitted = slope * transformed + intercept
                if np.abs((np.round(fitted, places) if places < 12 else fitted) - ys).max() <= allowed:
                    return cls(source, target, form, slope, intercept, places, integer)
        return cls(source, target, "pairs", places=places, integer=integer, pairs=(xs, ys))


def _tidy(value: float, digits: int) -> float:
    """A fitted coefficient to ``digits`` significant digits (1.0 rather than 0.9999999999997); the simplest
    coefficients that fit are tried first: the plain form, then 6 digits, then 10."""
    return float(f"{value:.{digits}g}") if abs(value) > 1e-12 else 0.0
