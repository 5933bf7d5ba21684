"""The relations of a table found on its originals (issue 30): each kind tried on the pairs (and, for totals,
the small groups) of columns that can hold it, first on a sample of rows, then on every row for the candidates
left; a column is derived by one relation at most, and a derived column is the source of none."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import combinations

import numpy as np
import pandas as pd

from core.dataset.roles import Kind
from core.dataset.relations.base import MAX_GROUPS, is_date, is_number
from core.dataset.relations.columns import TableColumns, table_columns
from core.dataset.relations.determined import Determined
from core.dataset.relations.intervals import Intervals
from core.dataset.relations.monotone import FORMS, MIN_DISTINCT, Monotone
from core.dataset.relations.order import Order, as_numbers
from core.dataset.relations.relation import Relation
from core.dataset.relations.total import Total

SAMPLE_ROWS = 2_000  # the rows every candidate is tried on first
MAX_PARTS = 3  # a total is the sum of 2 or 3 columns


def find_relations(table: pd.DataFrame | TableColumns, columns: Iterable[str] | None = None,
                   kinds: Mapping[str, Kind] | None = None) -> list[Relation]:
    """Every relation that holds exactly on ``table`` (a frame, or a batch run's typed columns, read a few columns at a
    time) between ``columns`` (all by default: the caller leaves out keys and identifiers), in the order of the kinds
    above. ``kinds``, the columns' kinds when ``table`` is typed: a column sets another only if it is categorical (an
    avatar's number, averaged, is no original's value); without them, a column of at most ``MAX_GROUPS`` numbers
    may."""
    table = table_columns(table)
    n_rows = table.n_rows
    sample = table.sample(np.unique(np.linspace(0, n_rows - 1, min(n_rows, SAMPLE_ROWS)).astype(int)))
    counted = {name: table.distinct(name) for name in (table.names if columns is None else columns)}
    distinct = {name: count for name, count in counted.items() if count >= 2}
    names = list(distinct)
    arrays = _Sample(sample, names)
    derived: set[str] = set()
    found: list[Relation] = []

    def keep(relation: Relation | None) -> None:
        if relation is not None and relation.derived not in derived and not derived & set(relation.columns):
            found.append(relation)
            if relation.derived is not None:
                derived.add(relation.derived)

    numbers = [name for name in names if is_number(sample[name])]
    for source, target in _pairs(names):
        categorical = kinds[source] is Kind.CATEGORICAL if kinds else (
            not is_number(sample[source]) or distinct[source] <= MAX_GROUPS)
        if categorical and distinct[source] <= n_rows / 2 and distinct[target] <= distinct[source] and arrays.determines(
                source, target):
            keep(Determined.learned(table.whole([source, target]), source, target))
    for source in numbers:
        for target in names:
            if target != source and distinct[target] <= MAX_GROUPS and distinct[source] > 2 * distinct[target] \
                    and arrays.separates(source, target):
                keep(Intervals.learned(table.whole([source, target]), source, target))
    keep_best_monotone(table, arrays, [n for n in numbers if distinct[n] >= MIN_DISTINCT], keep)
    for relation in _totals(table, sample, [n for n in numbers if n not in derived]):
        keep(relation)
    ordered = [name for name in names if (is_number(sample[name]) or is_date(sample[name])) and name not in derived
               and distinct[name] >= 3]
    highs: set[str] = set()
    for low, high in _pairs(ordered):
        if is_date(sample[low]) == is_date(sample[high]) and high not in highs and low not in highs \
                and arrays.orders(low, high):
            relation = Order.learned(table.whole([low, high]), low, high)
            if relation is not None:
                highs.add(high)
                found.append(relation)
    return found


def keep_best_monotone(table: TableColumns, arrays: _Sample, numbers: list[str], keep) -> None:
    """Monotone pairs; when both directions hold, the one with the simpler form (log over exp), else the later
    column derived from the earlier."""
    learned = [Monotone.learned(table.whole([source, target]), source, target) for source, target in _pairs(numbers)
               if arrays.monotone(source, target)]
    rank = {form: position for position, form in enumerate([*FORMS, "pairs"])}
    for relation in sorted((r for r in learned if r is not None), key=lambda r: rank[r.form]):
        keep(relation)


def _pairs(names: list[str]) -> Iterable[tuple[str, str]]:
    """Every ordered pair, the later column second first (the earlier column is the source by default)."""
    for first, second in combinations(names, 2):
        yield first, second
        yield second, first


class _Sample:
    """A sample of rows as arrays, computed once: each column's codes (a missing value its own code), each
    number's or date's values and its order."""

    def __init__(self, sample: pd.DataFrame, names: list[str]):
        self.codes = {name: pd.factorize(sample[name], use_na_sentinel=False)[0] for name in names}
        self.numbers = {name: as_numbers(sample[name]) for name in names
                        if is_number(sample[name]) or is_date(sample[name])}
        self.order = {name: np.argsort(values, kind="stable") for name, values in self.numbers.items()}

    def determines(self, source: str, target: str) -> bool:
        x, y = self.codes[source], self.codes[target]
        return len(np.unique(x * (int(y.max()) + 1) + y)) == len(np.unique(x))

    def _sorted(self, source: str, target_values: np.ndarray, present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        order = self.order[source]
        order = order[present[order]]
        return self.numbers[source][order], target_values[order]

    def separates(self, source: str, target: str) -> bool:
        """The target's values, in the order of the source, run in one block each, with no tie across blocks."""
        present = ~np.isnan(self.numbers[source])
        xs, ys = self._sorted(source, self.codes[target], present)
        changes = np.diff(ys) != 0
        return bool(changes.sum() + 1 == len(np.unique(ys)) and not (changes & (np.diff(xs) == 0)).any())

    def monotone(self, source: str, target: str) -> bool:
        present = ~np.isnan(self.numbers[source]) & ~np.isnan(self.numbers[target])
        xs, ys = self._sorted(source, self.numbers[target], present)
        with np.errstate(invalid="ignore"):  # an infinite value: no step, no relation
            tied, steps = np.diff(xs) == 0, np.diff(ys)
        if (steps[tied] != 0).any():
            return False
        return bool((steps[~tied] > 0).all() or (steps[~tied] < 0).all())

    def orders(self, low: str, high: str) -> bool:
        """``low`` <= ``high`` on the sample, their ranges overlapping (else the order says nothing)."""
        lows, highs = self.numbers[low], self.numbers[high]
        with np.errstate(invalid="ignore"):
            holds = not (lows > highs).any()
        # a column the sample holds no value of says nothing (its few values elsewhere: no order taken)
        return holds and bool(np.isfinite(lows).any() and np.isfinite(highs).any()
                              and np.nanmax(lows) > np.nanmin(highs))


def _totals(table: TableColumns, sample: pd.DataFrame, numbers: list[str]) -> list[Relation]:
    """Sums of 2 or 3 columns equal to another on the sample's complete rows (to 1e-6 of their scale), then on
    every row."""
    complete = sample[numbers].dropna().astype(float)
    if len(complete) < 10 or len(numbers) < 3:
        return []
    values = complete.to_numpy()[:64]
    values = values[np.isfinite(values).all(axis=1)]
    if len(values) < 10:
        return []
    scale = np.abs(values).max(axis=0) + 1.0
    found = []
    for size in range(2, min(MAX_PARTS, len(numbers) - 1) + 1):
        for parts in combinations(range(len(numbers)), size):
            sums = values[:, parts].sum(axis=1)
            close = np.abs(values - sums[:, None]) <= 1e-6 * scale
            for total in np.flatnonzero(close.all(axis=0)):
                if total not in parts:
                    relation = Total.learned(table.whole([numbers[total], *(numbers[p] for p in parts)]),
                                             numbers[total], tuple(numbers[p] for p in parts))
                    if relation is not None:
                        found.append(relation)
    return found
