"""Temporary imputation of missing values and spikes, with indicator variables (SPEC section 2, steps 1 and 2).

Each incomplete variable gets an indicator variable (a categorical with modalities
``False``/``True``) that takes part in the projection and the synthesis; its value is
imputed so that the projection sees a complete table. At the end the avatar's value
is set back to missing where the avatar's own indicator says so.

Methods: ``mean``, ``median`` (numeric; categorical variables take the mode), ``mode``,
``knn`` and ``fast_knn`` (the default). The two k-NN methods impute a missing value
from the ``N_NEIGHBOURS`` nearest donors that observe the variable: mean of their values
(numeric) or their most frequent modality, ties going to the nearest donor
(categorical). Nearness is measured on the first ``IMPUTATION_AXES`` axes of a
projection of the incomplete table in which a missing value sits at the centroid (a categorical of more than
``MANY_MODALITIES`` modalities embedded first, as SPEC 2 has it: time and memory bounded by the rows, never by
modalities x modalities; seattlepets' 13 929 pet names took 71 s and 4.2 GB, 3 s and 0.4 GB embedded).
``knn`` takes every row as a donor; ``fast_knn`` fits the projection on, and takes
donors from, a random ``DONOR_FRACTION`` of the rows (at least ``MIN_DONORS``, at most
``MAX_DONORS``: beyond that, more donors barely change a 5-nearest-neighbour mean).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from core.engine.encoding import EncodedTable
from core.engine.neighbours import NeighbourTree
from core.engine.projection import Projection
from core.engine.reduction import CategoricalReduction
from core.engine.schema import MANY_MODALITIES
from core.engine.value_grid import ValueGrid

N_NEIGHBOURS = 5
IMPUTATION_AXES = 5
DONOR_FRACTION = 0.1
MIN_DONORS = 1_000
MAX_DONORS = 20_000
MISSING_SUFFIX = " (missing)"
MISSING_MODALITIES = np.array([False, True], dtype=object)
SPIKE_SHARE = 0.10
SPIKE_MIN_DISTINCT = 10
SPIKE_MIN_ROWS = 5  # in a small table two equal values are a coincidence, not a spike


@dataclass(frozen=True)
class Indicators:
    """Where the indicator variables are, by position (never by name: a user's column may be called
    ``sex (missing)``): ``n_categorical`` categorical variables come before them; ``missing_numeric`` and
    ``missing_categorical`` pair a variable with its missing indicator; ``spikes`` pair a numeric variable with
    its spike indicator and the spike's value."""

    n_categorical: int
    missing_numeric: tuple[tuple[int, int], ...]
    missing_categorical: tuple[tuple[int, int], ...]
    spikes: tuple[tuple[int, int, float], ...]


@dataclass(frozen=True)
class IndicatorFacts:
    """What the indicator variables are decided from, summable over the parts of a table (SPEC section 10).

    The variables with a missing value; per numeric variable its present values, its distinct values up to
    ``SPIKE_MIN_DISTINCT + 1`` (None beyond) and the values that could be its spike: those holding
    ``SPIKE_SHARE`` of a part's present values (a value that holds that share of the whole table holds it in one
    part at least). Their counts are a second look at each part (:meth:`counts`), summed with
    :func:`summed_counts`; :meth:`layout` then decides, as on the whole table at once.
    """

    numeric_missing: np.ndarray
    categorical_missing: np.ndarray
    present: np.ndarray
    distinct: tuple[frozenset[float] | None, ...]
    candidates: tuple[frozenset[float], ...]

    @classmethod
    def of(cls, table: EncodedTable) -> IndicatorFacts:
        numeric_missing = np.isnan(table.numeric)
        present = (~numeric_missing).sum(axis=0)
        distinct, candidates = [], []
        for j in range(table.numeric.shape[1]):
            values, counts = np.unique(table.numeric[~numeric_missing[:, j], j], return_counts=True)
            distinct.append(frozenset(values.tolist()) if len(values) <= SPIKE_MIN_DISTINCT + 1 else None)
            # a hair below the share: a value at exactly the share of the whole table is never missed by rounding
            candidates.append(frozenset(values[counts >= SPIKE_SHARE * (1 - 1e-9) * present[j]].tolist()))
        # codes are (rows, variables): any(axis=0) is an array (numpy's stubs allow a scalar, for one dimension)
        categorical_missing = cast(np.ndarray, (table.codes < 0).any(axis=0))
        return cls(numeric_missing.any(axis=0), categorical_missing, present, tuple(distinct), tuple(candidates))

    def merged(self, other: IndicatorFacts) -> IndicatorFacts:
        """The facts of both parts together."""
        distinct = tuple(None if first is None or second is None or len(first | second) > SPIKE_MIN_DISTINCT + 1
                         else first | second for first, second in zip(self.distinct, other.distinct, strict=True))
        return IndicatorFacts(
            self.numeric_missing | other.numeric_missing, self.categorical_missing | other.categorical_missing,
            self.present + other.present, distinct,
            tuple(first | second for first, second in zip(self.candidates, other.candidates, strict=True)),
        )

    def counts(self, table: EncodedTable) -> list[dict[float, int]]:
        """How many rows of ``table`` hold each candidate spike, per numeric variable."""
        return [{value: int(np.count_nonzero(table.numeric[:, j] == value)) for value in sorted(values)}
                for j, values in enumerate(self.candidates)]

    def layout(self, counts: list[dict[float, int]]) -> Indicators:
        """The indicators: of missing numeric values, in column order, then of categorical ones, then of the spikes
        (see :func:`add_indicators`), with the candidates' ``counts`` on the whole table."""
        spikes = []
        for j, column_counts in enumerate(counts):
            if self.distinct[j] is not None or not column_counts:
                continue
            value = min(column_counts, key=lambda candidate: (-column_counts[candidate], candidate))  # ties: smallest
            if column_counts[value] >= max(SPIKE_SHARE * self.present[j], SPIKE_MIN_ROWS):
                spikes.append((j, float(value)))
        n_categorical = len(self.categorical_missing)
        incomplete_numeric = np.flatnonzero(self.numeric_missing)
        incomplete_categorical = np.flatnonzero(self.categorical_missing)
        positions = iter(range(n_categorical, n_categorical + len(incomplete_numeric) + len(incomplete_categorical)
                               + len(spikes)))
        return Indicators(
            n_categorical=n_categorical,
            missing_numeric=tuple((int(j), next(positions)) for j in incomplete_numeric),
            missing_categorical=tuple((int(j), next(positions)) for j in incomplete_categorical),
            spikes=tuple((j, next(positions), value) for j, value in spikes),
        )


def summed_counts(first: list[dict[float, int]], second: list[dict[float, int]]) -> list[dict[float, int]]:
    """The candidates' counts of two parts together."""
    return [{value: one.get(value, 0) + other.get(value, 0) for value in one.keys() | other.keys()}
            for one, other in zip(first, second, strict=True)]


def indicator_layout(table: EncodedTable) -> Indicators:
    """The indicators ``table`` needs, decided on it alone: incomplete variables, and the spikes: a value that holds
    at least ``SPIKE_SHARE`` of a numeric column's non-missing rows (zero earnings, a one-day stay), and at least
    ``SPIKE_MIN_ROWS`` rows, in a column of more than ``SPIKE_MIN_DISTINCT`` distinct values (with fewer, every
    value holds a large share: levels, not a spike)."""
    facts = IndicatorFacts.of(table)
    return facts.layout(facts.counts(table))


def add_indicators(table: EncodedTable, layout: Indicators | None = None) -> tuple[EncodedTable, Indicators]:
    """``table`` with one indicator variable per incomplete variable and per spike, appended to its categoricals.

    ``layout``: the indicators decided on the whole table when ``table`` is one part of it (a variable complete
    in this part still gets its indicator); by default :func:`indicator_layout` of ``table``. A spike is handled
    like a missing value (synthpop's ``semicont``): its cells are blanked here, to be imputed from the column's
    other values, and its indicator says where it was; at the end the avatar takes the spike's exact value where
    its own indicator says so. The numeric array is overwritten (the spike cells blanked).
    """
    layout = layout or indicator_layout(table)
    numeric_missing = [np.isnan(table.numeric[:, j]) for j, _ in layout.missing_numeric]
    categorical_missing = [table.codes[:, j] < 0 for j, _ in layout.missing_categorical]
    spiked = [table.numeric[:, j] == value for j, _, value in layout.spikes]
    for (j, _, _), cells in zip(layout.spikes, spiked, strict=True):
        table.numeric[cells, j] = np.nan  # imputed with the missing values, from the column's other values
    columns = [*numeric_missing, *categorical_missing, *spiked]
    indicators = np.column_stack(columns) if columns else np.empty((table.n_rows, 0), dtype=bool)
    names = [table.numeric_names[j] + MISSING_SUFFIX for j, _ in layout.missing_numeric] + [
        table.categorical_names[j] + MISSING_SUFFIX for j, _ in layout.missing_categorical
    ] + [f"{table.numeric_names[j]} (= {value:g})" for j, _, value in layout.spikes]
    extended = EncodedTable(
        numeric=table.numeric,
        codes=np.hstack([table.codes, indicators.astype(table.codes.dtype)]),
        numeric_names=table.numeric_names,
        categorical_names=table.categorical_names + tuple(names),
        categories=table.categories + (MISSING_MODALITIES,) * len(names),
    )
    return extended, layout


def restore_indicated(table: EncodedTable, layout: Indicators,
                      grids: Sequence[ValueGrid | None] | None = None) -> EncodedTable:
    """Each spike put back where its indicator says so, then each value blanked whose indicator says missing, and
    the indicators dropped (inverse of :func:`add_indicators`).

    ``grids``, per numeric column, the grid its values are written on (:mod:`core.engine.value_grid`; None for
    full precision): a value whose indicator says "not the spike" but which would be written as the spike is moved
    to the grid's next value on its own side, so that the spike's share is its indicator's (the originals' other
    values never equal it; a smooth model's draws near a spike of 33 % rounded to 41 % of the avatars).
    ``table``'s arrays are overwritten (synthesised rows, used once): no copy of a million rows.
    """
    numeric = table.numeric
    codes = table.codes[:, :layout.n_categorical]
    for j, position, value in layout.spikes:
        spike = table.codes[:, position] == 1
        grid = grids[j] if grids is not None else None
        if grid is not None:
            near = ~spike & (grid.written(numeric[:, j]) == value)
            numeric[near, j] = grid.beside(value, numeric[near, j])
        numeric[spike, j] = value
    for j, position in layout.missing_numeric:
        numeric[table.codes[:, position] == 1, j] = np.nan
    for j, position in layout.missing_categorical:
        codes[table.codes[:, position] == 1, j] = -1
    return EncodedTable(
        numeric=numeric,
        codes=codes,
        numeric_names=table.numeric_names,
        categorical_names=table.categorical_names[:layout.n_categorical],
        categories=table.categories[:layout.n_categorical],
    )


def impute(table: EncodedTable, method: str, rng: np.random.Generator) -> EncodedTable:
    """``table`` completed in place: its arrays are overwritten (see the module docstring for the methods).

    Every value filled in is computed from the incomplete table before any is written.
    """
    numeric_missing, categorical_missing = np.isnan(table.numeric), table.codes < 0
    if not numeric_missing.any() and not categorical_missing.any():
        return table
    if method in ("knn", "fast_knn"):
        numeric_fills, categorical_fills = _fills_from_neighbours(table, method == "fast_knn", rng)
    else:
        numeric_fills = [(j, missing, _simple_fill(table.numeric[~missing, j], method))
                         for j, missing in _incomplete_columns(numeric_missing)]
        categorical_fills = [
            (j, missing, int(np.argmax(np.bincount(table.codes[~missing, j], minlength=len(table.categories[j])))))
            for j, missing in _incomplete_columns(categorical_missing)
        ]
    for j, missing, values in numeric_fills:
        table.numeric[missing, j] = values
    for j, missing, values in categorical_fills:
        table.codes[missing, j] = values
    return table


def _incomplete_columns(missing: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """``(column, missing rows)`` of each column with a missing value and an observed one. A column missing on every
    row (a batch of a table none of whose rows observes a sparse variable, SPEC section 10) has nothing to impute
    from: it stays missing, at the centroid of the projection, and its indicator makes every avatar's value missing."""
    return [(int(j), missing[:, j]) for j in np.flatnonzero(missing.any(axis=0) & ~missing.all(axis=0))]


def _simple_fill(observed: np.ndarray, method: str) -> float:
    if method == "mean":
        return observed.mean()
    if method == "median":
        return np.median(observed)
    values, counts = np.unique(observed, return_counts=True)
    return values[np.argmax(counts)]


Fills = list[tuple[int, np.ndarray, np.ndarray | float]]  # (column, missing rows, a value for each or for all)


def _fills_from_neighbours(table: EncodedTable, fast: bool, rng: np.random.Generator) -> tuple[Fills, Fills]:
    n_rows = table.n_rows
    n_donors = min(n_rows, max(MIN_DONORS, min(MAX_DONORS, int(np.ceil(DONOR_FRACTION * n_rows))))) if fast else n_rows
    donors = np.sort(rng.choice(n_rows, size=n_donors, replace=False)) if n_donors < n_rows else np.arange(n_rows)
    sample = table.take(donors)
    reduction = CategoricalReduction(min_modalities=MANY_MODALITIES + 1).fit(sample) if any(
        len(modalities) > MANY_MODALITIES for modalities in table.categories) else None
    projection = Projection(reduction.column_weights_ if reduction else None).fit(
        reduction.transform(sample) if reduction else sample)
    n_axes = max(1, min(IMPUTATION_AXES, projection.n_components_))

    def coordinates(rows: np.ndarray) -> np.ndarray:
        rows_table = table.take(rows)
        return projection.transform(reduction.transform(rows_table) if reduction else rows_table, n_axes)

    searched: dict[object, tuple[np.ndarray, np.ndarray]] = {}  # columns missing on the same rows: one search

    def nearest_donors(missing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = _rows_key(missing)
        if rows not in searched:
            candidates = donors[~missing[donors]]
            if len(candidates) == 0:  # a sparse variable that no sampled donor observes
                candidates = np.flatnonzero(~missing)
            k = min(N_NEIGHBOURS, len(candidates))
            _, found = NeighbourTree(coordinates(candidates)).query(coordinates(np.flatnonzero(missing)), k)
            searched[rows] = candidates, found.reshape(int(missing.sum()), k)
        return searched[rows]

    numeric_fills: Fills = []
    categorical_fills: Fills = []
    for j, missing in _incomplete_columns(np.isnan(table.numeric)):
        candidates, found = nearest_donors(missing)
        numeric_fills.append((j, missing, table.numeric[candidates[found], j].mean(axis=1)))
    for j, missing in _incomplete_columns(table.codes < 0):
        candidates, found = nearest_donors(missing)
        categorical_fills.append((j, missing, most_frequent(table.codes[candidates[found], j])))
    return numeric_fills, categorical_fills


def _rows_key(missing: np.ndarray) -> object:
    """The rows a column misses, as a key: columns missing on the same rows share their search of donors."""
    return np.packbits(missing).tobytes()


def most_frequent(codes: np.ndarray) -> np.ndarray:
    """Row-wise mode of (n, k) codes; ties go to the earliest column."""
    counts = (codes[:, :, None] == codes[:, None, :]).sum(axis=2)
    return codes[np.arange(len(codes)), np.argmax(counts, axis=1)]
