"""Relations across the rows of one family (issue 45): what every real family's rows hold in sequence, found on the
originals as the relations between columns are (issue 30), kept in the avatars by rebuilding each family's sequence
from its own rows, and scored by the share of families that break each.

A child table's rows form families, one per parent they name (SPEC 12). Along the family's sequence (its counter,
else the start of a chain, else its first date), every real family may hold:

- a **counter** ``c``: 1, 2, ..., n (or 0, ..., n - 1), in sequence order;
- a **chain** ``start``, ``stop``: each row starts where the previous one stopped (survival's ``cgd``: each
  infection-free interval starts at the previous one's ``tstop``);
- a **first value** fixed: the first row's value is the same in every family (a follow-up starting at 0);
- a **running total** ``t`` of ``x``: ``t_i = x_1 + ... + x_i``;
- an **ordered** column: never decreasing along the sequence (visit dates along the visit number).

Each is taken only when it holds on every family (non-missing) and is unlikely by chance: at least
:data:`MIN_FAMILIES` families of two rows or more (a chain, a total, a counter), odds below 1e-9 of a first value
shared by chance (``families x log(share of that value)``) or of columns ordered by chance (``-sum log n_f!``).

The avatars keep them (:meth:`FamilySequences.rebuilt`): each avatar family's rows sorted by the avatars' own order
column, the counter renumbered, each chain rebuilt from its first start (the fixed value, or the avatar's own)
by the rows' own lengths (``stop - start``, never negative; shortened in proportion when the family's last stop would
pass the originals' largest, the chain's ``value``), the first value set, each running total summed again,
each ordered column's values sorted along the sequence. Nothing else of a row changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from core.dataset.relations.base import CHANCE, decimals, is_date, is_number, tolerance
from core.dataset.relations.order import as_numbers
from core.i18n import _

MIN_FAMILIES = 5  # families of two rows or more a relation across rows must hold on
COUNTER, CHAIN, FIRST, RUNNING_TOTAL, ORDERED = "counter", "chain", "first value", "running total", "ordered"


@dataclass(frozen=True)
class FamilyRelation:
    """One relation across a family's rows: its ``kind`` (:data:`COUNTER`...), the ``columns`` it reads (a chain's
    start and stop, a total and its part), and its ``value`` (a counter's first number, a fixed first value)."""

    kind: str
    columns: tuple[str, ...]
    value: Any = None

    def sentence(self) -> str:
        """The relation in words, for the pages, the command line and the report."""
        first = self.columns[0]
        if self.kind == COUNTER:
            return _("'{column}' counts each family's rows {start}, {next}, ... in order").format(
                column=first, start=self.value, next=self.value + 1)
        if self.kind == CHAIN:
            return _("each row of a family starts ('{start}') where the previous one stopped ('{stop}')").format(
                start=first, stop=self.columns[1])
        if self.kind == FIRST:
            return _("'{column}' is {value} on each family's first row").format(column=first, value=self.value)
        if self.kind == RUNNING_TOTAL:
            return _("'{total}' is the running total of '{part}' along each family").format(
                total=first, part=self.columns[1])
        return _("'{column}' never decreases along each family").format(column=first)

    def to_dict(self) -> dict[str, Any]:
        value = self.value.isoformat() if isinstance(self.value, pd.Timestamp) else self.value
        return {"kind": self.kind, "columns": list(self.columns), **({"value": value} if value is not None else {})}


@dataclass(frozen=True)
class FamilySequences:
    """The relations every family of a child table holds in sequence, and the ``order`` column that sequences a
    family's rows (None: no relation found)."""

    order: str | None
    relations: tuple[FamilyRelation, ...] = ()

    @classmethod
    def find(cls, frame: pd.DataFrame, family: np.ndarray, derived: Sequence[str] = ()) -> FamilySequences:
        """The relations of ``frame``'s rows (typed; no key) whose families are ``family`` (a code per row, -1 for a
        row without one); ``derived``, the columns a relation between columns computes, take part in none (a chain's
        stop may be an order's later column: the rebuilt chain keeps it after its start)."""
        rows = Rows(frame, family)
        if rows.long_families < MIN_FAMILIES:
            return cls(None)
        numbers = {name: values for name in frame.columns if (values := _numbers(frame[name])) is not None}
        complete = {name: values for name, values in numbers.items() if not np.isnan(values[rows.members]).any()}
        free = {name: values for name, values in complete.items() if name not in derived}
        counters = [name for name, values in free.items() if rows.walk(values).counter_start(values) is not None]
        if counters:
            order = counters[0]
        else:
            starts = [start for start in free if rows.walk(free[start]).chain_stops(free[start], complete)]
            dates = [name for name in free if is_date(frame[name])]
            order = starts[0] if starts else dates[0] if dates else None
        if order is None:
            return cls(None)
        walk = rows.walk(complete[order])
        relations = [FamilyRelation(COUNTER, (name,), start) for name in counters
                     if (start := walk.counter_start(free[name])) is not None]
        relations += [FamilyRelation(CHAIN, (start, stop), _value(frame[stop], complete[stop].max())) for start in free
                      for stop in walk.chain_stops(free[start], complete)]
        counted = {relation.columns[0] for relation in relations if relation.kind == COUNTER}
        relations += [FamilyRelation(FIRST, (name,), value) for name in frame.columns
                      if name not in (*derived, *counted) and (value := walk.fixed_first(frame[name])) is not None]
        relations += [FamilyRelation(RUNNING_TOTAL, (total, part)) for total in free for part in complete
                      if total != part and total not in counted and walk.is_running_total(free[total],
                                                                                        complete[part])]
        taken = {order, *counted, *(name for relation in relations if relation.kind in (CHAIN, RUNNING_TOTAL)
                                    for name in relation.columns[:2 if relation.kind == CHAIN else 1])}
        relations += [FamilyRelation(ORDERED, (name,)) for name in free
                      if name not in taken and walk.is_ordered(free[name])]
        return cls(order, tuple(relations))

    def rebuilt(self, frame: pd.DataFrame, family: np.ndarray) -> pd.DataFrame:
        """``frame`` (avatars) with every relation rebuilt along its families' sequences (see the module)."""
        if not self.relations:
            return frame
        walk = Rows(frame, family).walk(_numeric(frame[self.order]))
        sequence, first, position = walk.sequence, walk.first, walk.position
        changed: dict[str, np.ndarray] = {}

        def current(name: str) -> np.ndarray:
            return changed[name] if name in changed else _numeric(frame[name])[sequence]

        fixed = {relation.columns[0]: relation.value for relation in self.relations if relation.kind == FIRST}
        for relation in self.relations:
            if relation.kind == COUNTER:
                changed[relation.columns[0]] = relation.value + position.astype(float)
            elif relation.kind == CHAIN:
                start, stop = relation.columns
                length = np.maximum(current(stop) - current(start), 0.0)
                begin = current(start)[first]
                if start in fixed:
                    begin = np.full(len(begin), _number(fixed[start]))
                family_length = np.bincount(walk.codes, weights=length)
                room = np.maximum(_number(relation.value) - begin, 0.0)  # the last stop within the originals' range
                with np.errstate(divide="ignore", invalid="ignore"):
                    length = length * np.where(family_length > room, room / family_length, 1.0)[walk.codes]
                ends = begin[walk.codes] + _within_family_cumsum(length, first)
                changed[stop] = ends
                changed[start] = np.where(first, begin[walk.codes], np.roll(ends, 1))  # exactly the previous stop
            elif relation.kind == RUNNING_TOTAL:
                total, part = relation.columns
                changed[total] = _within_family_cumsum(current(part), first)
            elif relation.kind == ORDERED:
                name = relation.columns[0]
                values = current(name)
                changed[name] = values[np.lexsort((values, walk.codes))]
        for name, value in fixed.items():  # last: an ordered column's first value too (a follow-up from day 0)
            if name in changed:
                changed[name] = np.where(first, _number(value), changed[name])
        places: dict[str, int] = {}  # a chain's start and stop, a total and its part: the finer decimals of the two
        for relation in self.relations:
            if relation.kind in (CHAIN, RUNNING_TOTAL):
                finer = max(decimals(_numeric(frame[column])) for column in relation.columns)
                places |= dict.fromkeys(relation.columns, finer)
        out = frame.copy()
        for name, values in changed.items():
            placed = _numeric(frame[name]).copy()
            placed[sequence] = values
            out[name] = _written(frame[name], placed, places.get(name))
        for name, value in fixed.items():
            if name in changed:
                continue
            column = out[name].copy()
            at = column.index[sequence[first]]
            column.loc[at] = value
            out[name] = column
        return out

    def broken_families(self, frame: pd.DataFrame, family: np.ndarray) -> list[tuple[FamilyRelation, int, int]]:
        """Per relation, how many of ``frame``'s families break it, of those it applies to (every family for a
        counter and a first value; those of two rows or more otherwise)."""
        if not self.relations:
            return []
        walk = Rows(frame, family).walk(_numeric(frame[self.order]))
        sequence, first, position, codes = walk.sequence, walk.first, walk.position, walk.codes
        n_families = int(first.sum())
        sizes = np.bincount(codes, minlength=n_families)
        long = sizes >= 2
        results = []
        for relation in self.relations:
            # a first value's column may hold no numbers, and its values are not read
            values = np.empty(0) if relation.kind == FIRST else _numeric(frame[relation.columns[0]])[sequence]
            if relation.kind == COUNTER:
                wrong = ~np.isclose(values, relation.value + position)
                applies = np.ones(n_families, dtype=bool)
            elif relation.kind == CHAIN:
                stop = _numeric(frame[relation.columns[1]])[sequence]
                wrong = np.zeros(len(values), dtype=bool)
                wrong[1:] = ~first[1:] & ~_equal(values[1:], stop[:-1])
                applies = long
            elif relation.kind == FIRST:
                column = frame[relation.columns[0]].iloc[sequence].reset_index(drop=True)
                wrong = np.zeros(len(column), dtype=bool)
                wrong[first] = ~_same(column[first], relation.value)
                applies = np.ones(n_families, dtype=bool)
            elif relation.kind == RUNNING_TOTAL:
                part = _numeric(frame[relation.columns[1]])[sequence]
                wrong = ~_equal(values, _within_family_cumsum(part, first))
                applies = long
            else:
                wrong = np.zeros(len(values), dtype=bool)
                with np.errstate(invalid="ignore"):
                    wrong[1:] = ~first[1:] & ~(values[1:] >= values[:-1])
                applies = long
            broken = np.bincount(codes[wrong], minlength=n_families) > 0
            results.append((relation, int((broken & applies).sum()), int(applies.sum())))
        return results

    def to_dict(self) -> dict[str, Any]:
        return {"order": self.order, "relations": [relation.to_dict() for relation in self.relations]}


class Rows:
    """The rows of a table that belong to a family (``members``), walked family by family along a key."""

    def __init__(self, frame: pd.DataFrame, family: np.ndarray):
        self.family = np.asarray(family, dtype=np.int64)
        self.members = np.flatnonzero(self.family >= 0)
        counts = np.bincount(self.family[self.members]) if len(self.members) else np.zeros(0, dtype=np.int64)
        self.long_families = int((counts >= 2).sum())

    def walk(self, key: np.ndarray) -> Walk:
        """The member rows sorted by family, then ``key`` (missing last), then their order in the table."""
        members = self.members
        return Walk(members[np.lexsort((members, np.nan_to_num(key[members], nan=np.inf), self.family[members]))],
                    self.family, self.long_families)


class Walk:
    """The member rows in sequence (``sequence``, row numbers), whether each is its family's ``first``, its
    ``position`` in its family (0 first) and its family's number along the walk (``codes``)."""

    def __init__(self, sequence: np.ndarray, family: np.ndarray, long_families: int):
        self.sequence, self.long_families = sequence, long_families
        families = family[sequence]
        self.first = np.ones(len(sequence), dtype=bool)
        self.first[1:] = families[1:] != families[:-1]
        starts = np.maximum.accumulate(np.where(self.first, np.arange(len(sequence)), 0))
        self.position = np.arange(len(sequence)) - starts
        self.codes = np.cumsum(self.first) - 1

    def counter_start(self, values: np.ndarray) -> int | None:
        """0 or 1 when ``values`` count every family's rows from it along the walk (whole numbers), else None."""
        shifted = values[self.sequence] - self.position
        if not len(shifted) or self.long_families < MIN_FAMILIES or not np.all(shifted == shifted[0]):
            return None
        return int(shifted[0]) if shifted[0] in (0.0, 1.0) else None

    def chain_stops(self, start: np.ndarray, candidates: Mapping[str, np.ndarray]) -> list[str]:
        """The columns of ``candidates`` that each row's ``start`` follows: the previous row's value in every family
        (and never before its own start)."""
        begin = start[self.sequence]
        follows = ~self.first[1:]
        if follows.sum() < MIN_FAMILIES or np.all(begin == begin[0]):
            return []
        stops = []
        for name, stop in candidates.items():
            end = stop[self.sequence]
            if stop is not start and not np.any(begin > end) and np.all(_equal(begin[1:][follows],
                                                                                 end[:-1][follows])):
                stops.append(name)
        return stops

    def fixed_first(self, column: pd.Series) -> Any:
        """The value every family's first row holds, when unlikely by chance and not the whole column's; else
        None."""
        values = column.iloc[self.sequence].reset_index(drop=True)
        heads = values[self.first]
        if heads.isna().any() or heads.nunique() != 1 or values.nunique(dropna=False) < 2:
            return None
        value = heads.iloc[0]
        share = float(_same(values, value).mean())
        if len(heads) * math.log(share) >= CHANCE:
            return None
        return value.item() if isinstance(value, np.generic) else value

    def is_running_total(self, total: np.ndarray, part: np.ndarray) -> bool:
        parts = part[self.sequence]
        if self.long_families < MIN_FAMILIES or not np.any(parts[~self.first] != 0):
            return False
        return bool(np.all(_equal(total[self.sequence], _within_family_cumsum(parts, self.first))))

    def is_ordered(self, values: np.ndarray) -> bool:
        """Never decreasing along every family, with odds below 1e-9 of that by chance (``-sum log(n_f! / prod
        ties!)`` over the families, the orders of each family's values equally likely)."""
        ordered = values[self.sequence]
        if not np.all(self.first[1:] | (ordered[1:] >= ordered[:-1])):
            return False
        ties = pd.DataFrame({"family": self.codes, "value": ordered}).groupby(["family", "value"]).size().to_numpy()
        arrangements = sum(math.lgamma(size + 1) for size in np.bincount(self.codes)) - sum(
            math.lgamma(tie + 1) for tie in ties)
        return -arrangements < CHANCE


def _numbers(column: pd.Series) -> np.ndarray | None:
    """A column's values as numbers (dates as nanoseconds, a categorical of numbers as its numbers; missing NaN), or
    None when they are not numbers."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        if not is_number(pd.Series(column.cat.categories)):
            return None
        return column.astype(float).to_numpy()
    return as_numbers(column) if is_number(column) or is_date(column) else None


def _numeric(column: pd.Series) -> np.ndarray:
    """The values of a column a relation reads as numbers (:func:`_numbers`): numbers, as it was found on them."""
    values = _numbers(column)
    assert values is not None, f"'{column.name}' holds no numbers"
    return values


def _within_family_cumsum(values: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The running sum of ``values`` restarting at each family's first row."""
    totals = np.cumsum(values)
    before = np.where(first, totals - values, np.nan)
    return totals - pd.Series(before).ffill().to_numpy()


def _equal(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Equal within float error at the magnitude of the values (missing is never equal)."""
    return np.abs(left - right) <= tolerance(np.concatenate([left, right]))


def _same(values: pd.Series, value: Any) -> np.ndarray:
    return (values.astype(object) == value).fillna(False).to_numpy(dtype=bool)


def _value(column: pd.Series, number: float) -> Any:
    """``number`` (of :func:`_numbers`) as ``column`` writes it: a date, or a plain number."""
    if is_date(column):
        return pd.Timestamp(int(number), tz="UTC").tz_convert(column.dt.tz) if column.dt.tz is not None else \
            pd.Timestamp(int(number))
    return float(number)


def _number(value: Any) -> float:
    return float(_numeric(pd.Series([value]))[0])


def _written(column: pd.Series, numbers: np.ndarray, places: int | None = None) -> pd.Series:
    """``numbers`` written as ``column`` is: a date, a whole number or a number of its decimals (or ``places``), a
    categorical of numbers (new values added to its categories), missing where NaN."""
    missing = np.isnan(numbers)
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = column.cat.categories
        values = pd.Series(numbers, index=column.index).astype(categories.dtype if not missing.any() else float)
        return values.astype(pd.CategoricalDtype(categories.union(pd.Index(values.dropna().unique()))))
    if is_date(column):
        nanoseconds = np.where(missing, 0, numbers).astype(np.int64).view("datetime64[ns]")
        written = pd.Series(nanoseconds, index=column.index).where(~missing)
        if column.dt.tz is not None:
            written = written.dt.tz_localize("UTC").dt.tz_convert(column.dt.tz)
        return written.astype(column.dtype)
    rounded = np.round(numbers, decimals(_numeric(column)) if places is None else places)
    if pd.api.types.is_integer_dtype(column) and np.all(rounded[~missing] == np.round(rounded[~missing])):
        whole = pd.array(np.where(missing, 0, rounded).astype(np.int64), dtype="Int64")
        whole[missing] = pd.NA
        return pd.Series(whole, index=column.index).astype(column.dtype if not missing.any() else "Int64")
    return pd.Series(rounded, index=column.index).astype(float if pd.api.types.is_integer_dtype(column) else
                                                         column.dtype)
