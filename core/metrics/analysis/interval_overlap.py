"""Confidence-interval overlap (Karr, Kohnen, Oganian, Reiter and Sanil, 2006), the measure SPEC section 9 uses to
compare a coefficient estimated on the real rows with the same coefficient estimated on the avatars."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.metrics.analysis import SIDES

SIGNIFICANCE = 0.05


@dataclass(frozen=True)
class Estimate:
    """One quantity fitted on one side (a coefficient, a hazard ratio): its value, 95 % interval and p-value."""

    value: float
    low: float
    high: float
    p_value: float

    @property
    def significant(self) -> bool:
        return bool(self.p_value < SIGNIFICANCE)


def interval_overlap(real_low: npt.ArrayLike, real_high: npt.ArrayLike, other_low: npt.ArrayLike,
                     other_high: npt.ArrayLike) -> np.ndarray:
    """``J = (1/2) [(U - L) / (U_r - L_r) + (U - L) / (U_o - L_o)]`` with ``L = max(L_r, L_o)`` and
    ``U = min(U_r, U_o)``: 1 for the same interval, 0 for intervals that touch, negative for intervals apart (the
    gap measured in interval widths). NaN where an interval is missing or has no width."""
    real_low, real_high, other_low, other_high = (np.asarray(bound, dtype=float)
                                                  for bound in (real_low, real_high, other_low, other_high))
    common = np.minimum(real_high, other_high) - np.maximum(real_low, other_low)
    with np.errstate(divide="ignore", invalid="ignore"):
        overlap = 0.5 * (common / (real_high - real_low) + common / (other_high - other_low))
    return np.where(np.isfinite(overlap), overlap, np.nan)


def estimates_overlap(real: Estimate | None, other: Estimate | None) -> float | None:
    """:func:`interval_overlap` of two estimates' intervals; None when either is missing or has no width."""
    if real is None or other is None:
        return None
    value = float(interval_overlap(real.low, real.high, other.low, other.high))
    return None if np.isnan(value) else value


@dataclass(frozen=True)
class ComparedEstimate:
    """One quantity (a coefficient, a hazard ratio) on the real rows, the avatars and the holdout, and how the
    avatars' interval (and the holdout's, the reference) meets the real one."""

    term: str
    real: Estimate | None
    avatars: Estimate | None
    holdout: Estimate | None

    def _on_overlap_scale(self, estimate: Estimate | None) -> Estimate | None:
        """The scale intervals are compared on: their own (a ratio's is its logarithm)."""
        return estimate

    @property
    def overlap(self) -> float | None:
        return estimates_overlap(self._on_overlap_scale(self.real), self._on_overlap_scale(self.avatars))

    @property
    def reference_overlap(self) -> float | None:
        return estimates_overlap(self._on_overlap_scale(self.real), self._on_overlap_scale(self.holdout))

    def to_json(self) -> dict[str, object]:
        return {"term": self.term, **{side: None if getattr(self, side) is None else vars(getattr(self, side))
                                      for side in SIDES},
                "overlap": self.overlap, "reference_overlap": self.reference_overlap}
