"""The relations of a table found on its originals (issue 30): each kind tried on the pairs (and, for totals,
the small groups) of columns that can hold it, first on a sample of rows, then on every row for the candidates
left; a column is derived by one relation at most, and a derived column is the source of none."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import combinations

import numpy as np
import pandas as pd

from core.dataset.relations.base import MAX_GROUPS, is_date, is_number
from core.dataset.relations.columns import TableColumns, table_columns
from core.dataset.relations.determined import Determined
from core.dataset.relations.intervals import Intervals
from core.dataset.relations.monotone import FORMS, MIN_DISTINCT, Monotone
from core.dataset.relations.order import Order, as_numbers
from core.dataset.relations.relation import Relation
from core.dataset.relations.total import Total
from core.dataset.roles import Kind

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

    number = {name: is_number(sample[name]) for name in names}
    dated = {name: is_date(sample[name]) for name in names}
    numbers = [name for name in names if number[name]]
    for source in names:  # each source screened against every target on the sample at once
        categorical = kinds[source] is Kind.CATEGORICAL if kinds else (
            not number[source] or distinct[source] <= MAX_GROUPS)
        if categorical and distinct[source] <= n_rows / 2:
            targets = [name for name in names if name != source and distinct[name] <= distinct[source]]
            arrays.screen("determines", source, targets)
    for source, target in _pairs(names):
        if arrays.passed("determines", source, target):
            keep(Determined.learned(table.whole([source, target]), source, target))
    for source in numbers:
        targets = [target for target in names if target != source and distinct[target] <= MAX_GROUPS
                   and distinct[source] > 2 * distinct[target]]
        for target in arrays.screen("separates", source, targets):
            keep(Intervals.learned(table.whole([source, target]), source, target))
    keep_best_monotone(table, arrays, [n for n in numbers if distinct[n] >= MIN_DISTINCT], keep)
    for relation in _totals(table, sample, [n for n in numbers if n not in derived]):
        keep(relation)
    ordered = [name for name in names if (number[name] or dated[name]) and name not in derived
               and distinct[name] >= 3]
    for low in ordered:
        arrays.screen("orders", low, [high for high in ordered if high != low and dated[high] == dated[low]])
    highs: set[str] = set()
    for low, high in _pairs(ordered):
        if high not in highs and low not in highs and arrays.passed("orders", low, high):
            order = Order.learned(table.whole([low, high]), low, high)
            if order is not None:
                highs.add(high)
                found.append(order)
    return found


def keep_best_monotone(table: TableColumns, arrays: _Sample, numbers: list[str],
                       keep: Callable[[Relation | None], None]) -> None:
    """Monotone pairs; when both directions hold, the one with the simpler form (log over exp), else the later
    column derived from the earlier."""
    for source in numbers:
        arrays.screen("monotone", source, [target for target in numbers if target != source])
    learned = [Monotone.learned(table.whole([source, target]), source, target) for source, target in _pairs(numbers)
               if arrays.passed("monotone", source, target)]
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
    number's or date's values and its order. Each test screens a source against many targets at once (issue 47:
    pair by pair, 1 000 columns took minutes); :meth:`passed` answers for a pair afterwards."""

    def __init__(self, sample: pd.DataFrame, names: list[str]):
        self.column = {name: position for position, name in enumerate(names)}
        self.codes = np.column_stack([pd.factorize(sample[name], use_na_sentinel=False)[0] for name in names]) \
            if names else np.empty((len(sample), 0), dtype=np.int64)
        self.numbers = {name: as_numbers(sample[name]) for name in names
                        if is_number(sample[name]) or is_date(sample[name])}
        self.values = np.column_stack([self.numbers.get(name, np.zeros(len(sample))) for name in names]) \
            if names else np.empty((len(sample), 0))
        self.order = {name: np.argsort(values, kind="stable") for name, values in self.numbers.items()}
        self.passing: dict[str, set[tuple[str, str]]] = {}

    def screen(self, test: str, source: str, targets: list[str]) -> list[str]:
        """The ``targets`` that pass ``test`` (determines, separates, monotone, orders) with ``source`` on the
        sample, in their order; remembered for :meth:`passed`."""
        if not targets:
            return []
        columns = np.array([self.column[target] for target in targets])
        passing = [target for target, ok in zip(targets, getattr(self, test)(source, columns), strict=True) if ok]
        self.passing.setdefault(test, set()).update((source, target) for target in passing)
        return passing

    def passed(self, test: str, source: str, target: str) -> bool:
        return (source, target) in self.passing.get(test, ())

    def determines(self, source: str, targets: np.ndarray) -> np.ndarray:
        """Each target takes one value per value of the source."""
        order = np.argsort(self.codes[:, self.column[source]], kind="stable")
        keys = self.codes[order, self.column[source]]
        codes = self.codes[order][:, targets]
        return ~((codes[1:] != codes[:-1]) & (keys[1:] == keys[:-1])[:, None]).any(axis=0)

    def _sorted(self, source: str) -> tuple[np.ndarray, np.ndarray]:
        """The sample's rows where the source is known, in its order, and its values in that order."""
        order = self.order[source]
        order = order[~np.isnan(self.numbers[source][order])]
        return order, self.numbers[source][order]

    def separates(self, source: str, targets: np.ndarray) -> np.ndarray:
        """Each target's values, in the order of the source, run in one block each, with no tie across blocks."""
        order, xs = self._sorted(source)
        if len(order) == 0:
            return np.zeros(len(targets), dtype=bool)
        codes = self.codes[order][:, targets]
        changes = codes[1:] != codes[:-1]
        values = (np.diff(np.sort(codes, axis=0), axis=0) != 0).sum(axis=0) + 1
        return (changes.sum(axis=0) + 1 == values) & ~(changes & (np.diff(xs) == 0)[:, None]).any(axis=0)

    def monotone(self, source: str, targets: np.ndarray) -> np.ndarray:
        """Each target rises, or falls, strictly with the source, on the rows where both are known."""
        order, xs = self._sorted(source)
        ys = self.values[order][:, targets]
        complete = ~np.isnan(ys).any(axis=0)
        with np.errstate(invalid="ignore"):  # an infinite value: no step, no relation
            tied, steps = np.diff(xs) == 0, np.diff(ys, axis=0)
            ok = ~((steps != 0) & tied[:, None]).any(axis=0)
            steps = steps[~tied]
            ok &= (steps > 0).all(axis=0) | (steps < 0).all(axis=0)
        for position in np.flatnonzero(~complete):  # a target missing on some rows: those of both known
            ok[position] = self._monotone_where_known(xs, ys[:, position])
        return ok

    @staticmethod
    def _monotone_where_known(xs: np.ndarray, ys: np.ndarray) -> bool:
        known = ~np.isnan(ys)
        xs, ys = xs[known], ys[known]
        with np.errstate(invalid="ignore"):
            tied, steps = np.diff(xs) == 0, np.diff(ys)
        if (steps[tied] != 0).any():
            return False
        return bool((steps[~tied] > 0).all() or (steps[~tied] < 0).all())

    def orders(self, low: str, highs: np.ndarray) -> np.ndarray:
        """``low`` <= each high on the sample, their ranges overlapping (else the order says nothing); a column the
        sample holds no value of says nothing (its few values elsewhere: no order taken)."""
        lows, values = self.numbers[low], self.values[:, highs]
        with np.errstate(invalid="ignore"):
            holds = ~(lows[:, None] > values).any(axis=0)
        known = np.isfinite(values).any(axis=0)
        if not np.isfinite(lows).any():
            return np.zeros(len(highs), dtype=bool)
        smallest = np.where(np.isnan(values), np.inf, values).min(axis=0)
        return holds & known & (np.nanmax(lows) > smallest)


def _totals(table: TableColumns, sample: pd.DataFrame, numbers: list[str]) -> list[Relation]:
    """Sums of 2 or 3 columns equal to another on the sample's complete rows (to 1e-6 of their scale), then on
    every row. The candidates come from each column's fingerprint, its values weighted by fixed random weights
    (a sum's is the sum of its parts'): a 2-part total is a pair's sum met among the columns', a 3-part one a pair's
    sum met among the differences of two columns (the search of 3SUM and 4SUM: the square of the columns, not their
    cube; issue 47: 300 columns took 37 s), each checked on the sample, then learned on every row."""
    complete = sample[numbers].dropna().astype(float)
    if len(complete) < 10 or len(numbers) < 3:
        return []
    values = complete.to_numpy()[:64]
    values = values[np.isfinite(values).all(axis=1)]
    if len(values) < 10:
        return []
    scale = np.abs(values).max(axis=0) + 1.0
    found: list[Relation] = []
    for total, parts in _total_candidates(values, scale):
        relation = Total.learned(table.whole([numbers[total], *(numbers[p] for p in parts)]), numbers[total],
                                 tuple(numbers[p] for p in parts))
        if relation is not None:
            found.append(relation)
    return found


def _total_candidates(values: np.ndarray, scale: np.ndarray) -> list[tuple[int, tuple[int, ...]]]:
    """Each (total, parts) of columns of ``values`` whose parts, 2 or 3 of them, sum to the total on every row (to
    1e-6 of its ``scale``), in the order of their size, their parts, then the total. Three fingerprints: the first
    searched, the others and then every row checked."""
    weights = np.random.default_rng(0).standard_normal((3, len(values)))
    prints = weights @ values
    room = 2e-6 * np.abs(weights).sum(axis=1)[:, None] * scale  # a total's print within this of its parts' sum's
    n = values.shape[1]
    first, second = np.triu_indices(n, 1)
    order = np.argsort(prints[0, first] + prints[0, second], kind="stable")
    first, second = first[order], second[order]
    sums = prints[0, first] + prints[0, second]
    totals, pairs = _meeting(sums, prints[0], room[0])
    found = [_fingerprinted(prints, room, totals, first[pairs], second[pairs], np.full(len(pairs), -1))]
    if MAX_PARTS >= 3:
        for total in range(n):  # print(total) - print(third) = print(first) + print(second)
            thirds, pairs = _meeting(sums, prints[0, total] - prints[0], np.full(n, room[0, total]))
            found.append(_fingerprinted(prints, room, np.full(len(pairs), total), first[pairs], second[pairs],
                                        thirds))
    met = np.unique(np.concatenate(found), axis=0)  # rows: size, three parts (-1 for none), total
    parts = met[:, 1:4]
    sums = np.where(parts >= 0, values[:, np.maximum(parts, 0)], 0.0).sum(axis=2)
    exact = (np.abs(sums - values[:, met[:, 4]]) <= 1e-6 * scale[met[:, 4]]).all(axis=0)
    return [(int(row[4]), tuple(int(part) for part in row[1:4] if part >= 0)) for row in met[exact]]


def _fingerprinted(prints: np.ndarray, room: np.ndarray, totals: np.ndarray, first: np.ndarray, second: np.ndarray,
                   third: np.ndarray) -> np.ndarray:
    """The candidates (``third`` -1 when none) of distinct columns whose other fingerprints agree too, as rows of
    their size, sorted parts (-1 first) and total, which sort as the candidates are returned."""
    parts = np.sort(np.column_stack([first, second, third]), axis=1)
    distinct = (parts[:, 1] != parts[:, 2]) & ((parts[:, 0] < 0) | (parts[:, 0] != parts[:, 1])) \
        & (totals[:, None] != parts).all(axis=1)
    for fingerprint, margin in zip(prints[1:], room[1:], strict=True):
        summed = np.where(parts >= 0, fingerprint[np.maximum(parts, 0)], 0.0).sum(axis=1)
        distinct &= np.abs(fingerprint[totals] - summed) <= margin[totals]
    size = (parts >= 0).sum(axis=1)
    shifted = np.where(size[:, None] == 2, np.roll(parts, -1, axis=1), parts)  # 2 parts: (a, b, -1)
    return np.column_stack([size, shifted, totals])[distinct].astype(np.int64)


def _meeting(sorted_sums: np.ndarray, targets: np.ndarray, room: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each (target, pair) with the pair's sum (``sorted_sums``, ascending) within ``room`` of the target."""
    low = np.searchsorted(sorted_sums, targets - room, side="left")
    high = np.searchsorted(sorted_sums, targets + room, side="right")
    counts = high - low
    pairs = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(low, counts)
    return np.repeat(np.arange(len(targets)), counts), pairs
