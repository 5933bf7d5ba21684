"""The risk profile of a table before any generation (SPEC section 6.4, revised): how many people the variables an
attacker could know single out, counted on the values as the attacker knows them.

Categories, whole numbers and dates count as written (a date to its own precision: who knows a birth date knows the
day); a number written with decimals counts at a precision, its *step* (values rounded to the nearest multiple), by
default :data:`DEFAULT_DIGITS` significant digits of its typical size (the median absolute value), never finer than
it is written; the user can set any number's step (``Knowledge.precision``). Missing is a value of its own. (Deciles,
the first rule, understated uniqueness 3 to 30 times: years of schooling, 19 values an attacker knows exactly,
became 7 bins.)

The figures: the people unique on the known variables, those in groups of fewer than :data:`SMALL_GROUP` (whom
k-anonymity with k = 5 would flag), and, greedily, the variables whose removal lowers the unique share most (at each
step the one whose removal leaves the fewest unique people, until no one is). Each count is one hash factorisation of
an exact group number per row (the codes combined column by column and renumbered, so no two groups ever merge):
linear per count, v^2 counts for v known variables.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.dataset.relations.base import decimals
from core.engine.encoding import numeric_values

SMALL_GROUP = 5
DEFAULT_DIGITS = 3


@dataclass(frozen=True)
class RiskProfile:
    """Who the ``known`` variables single out among ``rows`` people: ``unique`` of them alone on their values,
    ``small_groups`` in groups of fewer than :data:`SMALL_GROUP`; ``steps``, the precision each number with decimals
    was counted at (a number absent counts as written); the greedy ``removals``, each ``(variable removed, people
    unique once it and those before are removed)``, while someone is unique."""

    known: tuple[str, ...]
    rows: int
    unique: int
    small_groups: int
    removals: tuple[tuple[str, int], ...]
    steps: dict[str, float] = field(default_factory=dict)

    @property
    def unique_share(self) -> float:
        """In %."""
        return self.share(self.unique)

    @property
    def small_group_share(self) -> float:
        """In %."""
        return self.share(self.small_groups)

    def to_json(self) -> dict[str, object]:
        return {"known": list(self.known), "rows": self.rows, "unique": self.unique, "unique_share": self.unique_share,
                "small_groups": self.small_groups, "small_group_share": self.small_group_share,
                "small_group": SMALL_GROUP,
                "precision": {name: self.steps.get(name, "as written") for name in self.known},
                "removals": [{"variable": name, "unique": count, "unique_share": self.share(count)}
                             for name, count in self.removals]}

    def share(self, count: int) -> float:
        """``count`` people as a share of the table, in %."""
        return 100 * count / self.rows if self.rows else 0.0


def risk_profile(frame: pd.DataFrame, kinds: Mapping[str, Kind], known: Sequence[str],
                 steps: Mapping[str, float] | None = None) -> RiskProfile:
    """The profile of ``frame`` (typed) on the ``known`` variables; ``steps`` sets the precision of numbers (the
    others with decimals get :func:`default_step`)."""
    known = tuple(known)
    chosen = dict(steps or {})
    used = {}
    codes = {}
    for name in known:
        step = None
        if kinds[name] is Kind.NUMERIC:
            values = numeric_values(frame[name])
            step = counted_step(values, chosen.get(name))
        if step is not None:
            used[name] = step
        codes[name] = value_codes(frame[name], kinds[name], step)
    n_rows = len(frame)
    sizes = group_sizes([codes[name] for name in known], n_rows)
    unique = int(np.sum(sizes == 1))
    return RiskProfile(known, n_rows, unique, int(np.sum(sizes < SMALL_GROUP)),
                       _removals([codes[name] for name in known], known, n_rows, unique), used)


def _removals(codes: list[np.ndarray], known: tuple[str, ...], n_rows: int, unique: int
              ) -> tuple[tuple[str, int], ...]:
    """The greedy removals: at each step, the variable whose removal leaves the fewest unique people (the first
    listed on a tie), while someone is unique. Without variable ``j``, the groups are those of the variables before
    it and those after it combined: each step builds both runs once (``v`` variables, ``3 v`` combinations a step,
    not ``v^2``: 16 known variables on 1 000 000 rows took 50 s counted afresh)."""
    removals: list[tuple[str, int]] = []
    kept = list(range(len(known)))
    while len(kept) > 1 and (removals[-1][1] if removals else unique) > 0:  # none once no one is unique
        before = [np.zeros(n_rows, dtype=np.int64)]
        for position in kept:
            before.append(combined(before[-1], codes[position]))
        after = [np.zeros(n_rows, dtype=np.int64)]
        for position in reversed(kept):
            after.append(combined(after[-1], codes[position]))
        after.reverse()
        counts = [int(np.sum(group_sizes([combined(before[index], after[index + 1])], n_rows) == 1))
                  for index in range(len(kept))]
        best = int(np.argmin(counts))
        removals.append((known[kept[best]], counts[best]))
        del kept[best]
    return tuple(removals)


def counted_step(values: np.ndarray, given: float | None) -> float | None:
    """The step a number is counted at: the one ``given``, else :func:`default_step`; None (as written) when it is
    finer than the number's own decimals, or at most 1 for a whole number (a finer step groups the same people:
    1e-308 overflowed every wage to one value)."""
    step = default_step(values) if given is None else given
    places = decimals(values[np.isfinite(values)])
    if step is None or step < 10.0 ** -places or (places == 0 and step <= 1):
        return None
    return float(step)


def default_step(values: np.ndarray) -> float | None:
    """The precision a number with decimals is counted at by default: :data:`DEFAULT_DIGITS` significant digits of
    its median absolute value, never finer than its own decimals (a step of ``10^-decimals``); None for whole
    numbers, counted as written."""
    finite = values[np.isfinite(values)]
    written = decimals(finite)
    if written == 0:
        return None
    size = float(np.median(np.abs(finite))) or float(np.max(np.abs(finite)))
    digits = math.floor(math.log10(size)) - (DEFAULT_DIGITS - 1) if size > 0 else -written
    return float(10.0 ** max(digits, -written))


def value_codes(column: pd.Series, kind: Kind, step: float | None) -> np.ndarray:
    """Integer codes of a column's values as counted (``step``: a number rounded to its nearest multiple; None: as
    written), missing a code of its own."""
    if kind is Kind.CATEGORICAL:
        return pd.factorize(column.astype(object), use_na_sentinel=False)[0].astype(np.int64)
    values = numeric_values(column)
    if step is not None:
        with np.errstate(invalid="ignore"):
            values = np.floor(values / step + 0.5)
    return pd.factorize(values, use_na_sentinel=False)[0].astype(np.int64)  # NaN, one code


def combined(group: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """One exact group number per row for the pairs (``group``, ``codes``), renumbered from 0."""
    return pd.factorize(group * (int(codes.max(initial=0)) + 1) + codes)[0].astype(np.int64)


def group_sizes(columns: list[np.ndarray], n_rows: int) -> np.ndarray:
    """Per row, how many rows share its values on every one of ``columns`` (all rows alike without a column): the
    codes combined into one exact group number, renumbered after each column."""
    group = np.zeros(n_rows, dtype=np.int64)
    for codes in columns:
        group = combined(group, codes)
    return np.bincount(group, minlength=1)[group] if n_rows else np.zeros(0, dtype=np.int64)

