"""The grid a number's avatars are written on: the values its originals could have been written with.

Every number with a usual precision (decimals 2.5, a date's resolution) is written as ``(anchor + step * i) /
scale`` for a whole ``i`` (SPEC section 2, step 5; docs/decisions.md section 2, step 5):

- **Decimals**: ``scale = 10^decimals``, ``step = 1``: a number rounded to the decimals its originals are written
  with (``np.round`` exactly); a date or a duration counted in seconds, ``step`` its resolution.
- **A regular step** (issue 49): originals that all lie on ``anchor + step * i`` in those units (education in
  half-years, weights to 5 kg, prices at x.99) give ``step`` the greatest common divisor of their differences.
  ``m`` distinct values share one residue modulo ``step`` by chance with probability ``step^-(m - 1)`` (the
  residues uniform); the step is kept when that is below ``1 / STEP_EVIDENCE``, so a step is never read into three
  values, and when the originals' range holds no more of its values than there are originals (a step of 0.00004 kg
  among 2 000 weights of 30 to 150 kg, an artefact of converting pounds, is no grid a reader could see). One
  original off the step (a typo) leaves the decimals: never a value changed for a guess.
- **Few values**: a number taking at most ``FEW_VALUES`` distinct values is written as the nearest of its
  originals' values when at least ``RARE_HOLDERS`` originals hold that value, and those common values hold at least
  ``COMMON_SHARE`` of the rows. A rare exact value (held by fewer than 5 people) is never a target: an avatar whose
  nearest original value is rare keeps its decimals (or step) alone, as before the grid, so a rare value is never
  the reason an avatar's value is what it is.

Nor is a rare row: an avatar that its grid would write as a row fewer than ``RARE_HOLDERS`` originals hold is
written with its decimals only (:func:`rare_rows`; the row direct match protection's rare rows, SPEC 6.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from core.engine.neighbours import row_hashes

FEW_VALUES = 20
RARE_HOLDERS = 5
COMMON_SHARE = 0.95
STEP_EVIDENCE = 1_000.0
_EXACT_FLOAT = 2.0**53  # beyond, a float's units are not whole numbers


@dataclass(frozen=True)
class ValueGrid:
    """The values ``(anchor + step * i) / scale``, or only ``targets / scale`` when set (few values).

    ``counts``, each distinct value of the originals in units and how many hold it while they are at most
    ``FEW_VALUES`` (None: more, evidence enough for any step), is what the grid is decided from with ``anchor``
    (the lowest value in units), ``step``, ``top`` (the highest) and ``rows`` (the originals on the decimals); all
    merge exactly over a table's parts.
    """

    scale: float
    anchor: int = 0
    step: int = 1
    counts: tuple[tuple[int, int], ...] | None = None
    top: int = 0
    rows: int = 0

    @classmethod
    def of_decimals(cls, decimals: int, values: np.ndarray) -> ValueGrid:
        """The grid of the finite ``values`` of a number written with ``decimals``."""
        scale = 10.0**decimals
        scaled = values * scale
        units = np.round(scaled)
        on_decimals = np.abs(scaled - units) <= 1e-9 * np.abs(scaled)  # as the decimals were decided
        if not on_decimals.any():
            return cls(scale, 0, 0, ())  # no value yet: a part's grid that takes the others' when merged
        if np.abs(units).max() >= _EXACT_FLOAT:
            return cls(scale)
        distinct, holders = np.unique(units[on_decimals].astype(np.int64), return_counts=True)
        step = int(np.gcd.reduce(distinct - distinct[0])) if distinct.size > 1 else 0
        counts = tuple(zip(distinct.tolist(), holders.tolist(), strict=True)) if distinct.size <= FEW_VALUES else None
        return cls(scale, int(distinct[0]), step, counts, int(distinct[-1]), int(on_decimals.sum()))._plain_anchored()

    def _plain_anchored(self) -> ValueGrid:
        """Step 1 on every whole unit: the anchor, the top and the rows say nothing (0), so equal grids compare equal."""
        return replace(self, anchor=0, step=1, top=0, rows=0) if self.step == 1 else self

    @classmethod
    def of_resolution(cls, seconds: float) -> ValueGrid:
        """A date's or a duration's grid: whole multiples of its resolution in seconds."""
        return cls(1.0, 0, int(seconds))

    def rescaled(self, scale: float) -> ValueGrid:
        """The same grid counted in finer units (``scale`` a power of ten above this one's)."""
        factor = round(scale / self.scale)
        counts = None if self.counts is None else tuple((value * factor, held) for value, held in self.counts)
        return ValueGrid(scale, self.anchor * factor, self.step * factor, counts, self.top * factor, self.rows)

    def merged(self, other: ValueGrid) -> ValueGrid:
        """The grid of two parts of one table together (SPEC section 10), both in the same units: the steps'
        common divisor, the counts added."""
        if self.counts == ():
            return other
        if other.counts == ():
            return self
        step = math.gcd(self.step, other.step, abs(self.anchor - other.anchor))
        counts = None
        if self.counts is not None and other.counts is not None:
            added: dict[int, int] = dict(self.counts)
            for value, held in other.counts:
                added[value] = added.get(value, 0) + held
            counts = tuple(sorted(added.items())) if len(added) <= FEW_VALUES else None
        return ValueGrid(self.scale, min(self.anchor, other.anchor), step, counts, max(self.top, other.top),
                         self.rows + other.rows)._plain_anchored()

    @property
    def departs(self) -> bool:
        """Whether the grid writes values other than the decimals do (a step or few values)."""
        return self.targets is not None or self.regular_step > 1

    @property
    def regular_step(self) -> int:
        """The step in units the values are written on: the originals' when the evidence holds it and they fill
        it, else 1; a date's resolution (no originals counted) always."""
        if self.rows == 0 and self.counts is None:
            return max(self.step, 1)
        distinct = FEW_VALUES + 1 if self.counts is None else len(self.counts)
        if self.step > 1 and (distinct - 1) * math.log(self.step) >= math.log(STEP_EVIDENCE) \
                and (self.top - self.anchor) // self.step + 1 <= self.rows:
            return self.step
        return 1

    @property
    def targets(self) -> np.ndarray | None:
        """Few values: the values in units that at least ``RARE_HOLDERS`` originals hold, sorted (None: the rule
        does not apply)."""
        if self.counts is None:
            return None
        units = np.array([value for value, _ in self.counts], dtype=np.float64)
        holders = np.array([count for _, count in self.counts], dtype=np.float64)
        common = holders >= RARE_HOLDERS
        if common.sum() < 2 or holders[common].sum() < COMMON_SHARE * holders.sum():
            return None
        return units[common]

    def written(self, values: np.ndarray) -> np.ndarray:
        """``values`` as written on the grid (NaN stays NaN)."""
        targets = self.targets
        scaled = values * self.scale
        step = self.regular_step
        if step == 1:
            on_step = np.round(scaled)  # np.round(values, decimals) exactly, once divided
        else:
            on_step = self.anchor + step * np.round((scaled - self.anchor) / step)
        if targets is not None:
            nearest = _nearest(np.array([value for value, _ in self.counts or ()], dtype=np.float64), scaled)
            on_step = np.where(np.isin(nearest, targets), nearest, on_step)  # nearest a rare value: the step's
        return on_step / self.scale

    def beside(self, value: float, values: np.ndarray) -> np.ndarray:
        """The grid value next to ``value`` on each of ``values``' own side of it (the other side where none is):
        where a value that is not a spike goes when it would be written as the spike."""
        targets = self.targets
        if targets is None:
            gap = self.regular_step / self.scale
            return value + np.where(values < value, -gap, gap)
        units = value * self.scale
        below, above = targets[targets < units - 0.5], targets[targets > units + 0.5]
        lower = below[-1] if below.size else (above[0] if above.size else units)
        upper = above[0] if above.size else lower
        return np.where(values < value, lower, upper) / self.scale


def _nearest(targets: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each of ``values`` replaced by the nearest of the sorted ``targets`` (the lower one at the midpoint)."""
    upper = np.clip(np.searchsorted(targets, values), 1, targets.size - 1)
    low, high = targets[upper - 1], targets[upper]
    nearest = np.where(values - low <= high - values, low, high)
    return np.where(np.isnan(values), np.nan, nearest)


def written_row_hashes(numeric: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of written values (missing: NaN and code -1; -0.0 counted as 0.0)."""
    return row_hashes(np.column_stack([numeric + 0.0, codes]))


def rare_rows(hashes: np.ndarray) -> np.ndarray:
    """The distinct row hashes that fewer than ``RARE_HOLDERS`` rows hold."""
    distinct, held = np.unique(hashes, return_counts=True)
    return distinct[held < RARE_HOLDERS]
