"""The metrics of linked tables (SPEC 12, Metrics): every single-table metric per table; per link, referential
integrity, children per parent and the parent-child relations on the join; and the privacy of each person with
everything about them: each individual-level table's rows enriched by their descendants' aggregates (the commercial
engine's ``to_top_enriched``), scored as one table.

A table's keys (its primary key, its foreign keys) are left out of its own metrics: new in the avatars, they hold
nothing of the originals to measure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from core.dataset import Dataset, Kind, Link, LinkMethod
from core.dataset.keys import key_values
from core.engine.encoding import numeric_values
from core.engine.link_kinds import named
from core.engine.parameters import Parameters
from core.engine.schema import resolve_kinds
from core.engine.split import Holdout
from core.engine.time_series import series_of
from core.errors import InputError
from core.metrics.aggregates import mean_name, number_name, share_name
from core.i18n import N_, _
from core.metrics.analysis.mixed_model import MixedModelResult
from core.metrics.attack import Knowledge
from core.metrics.evaluation import Evaluation, evaluate
from core.metrics.inputs import typed_like
from core.metrics.context import LinkContext
from core.metrics.links import join
from core.metrics.metrics_json import finite
from core.metrics.result import MetricResult
from core.metrics.registry import link_metrics, series_metrics
from core.metrics.series.series_table import SeriesView, series_context, series_view
from core.metrics.series.trajectories import DAY_S, person_slopes

SHARED_MODALITIES = 10  # a child's categorical column enriches its parent with the shares of its most frequent ones


@dataclass(frozen=True)
class LinkedEvaluation:
    """``tables``: each table's :class:`~core.metrics.evaluation.Evaluation`; ``links``: each link's metrics (by
    its description, ``patients.id -> stays.patient``); ``persons``: each individual-level table with children,
    enriched by its descendants' aggregates; ``series``: each time series link's metrics (SPEC 13); ``trends``:
    the trend analysis of a series link's variable, once asked (:func:`~core.metrics.series.series_table.
    series_mixed_model`); ``series_views``: each series link's three sides, as its metrics, trend and figures read
    them (not in the JSON)."""

    tables: dict[str, Evaluation]
    links: dict[str, dict[str, MetricResult]]
    persons: dict[str, Evaluation]
    series: dict[str, dict[str, MetricResult]] = field(default_factory=dict)
    trends: dict[str, MixedModelResult] = field(default_factory=dict)  # each series link's trend, when asked
    series_views: dict[str, SeriesView] = field(default_factory=dict, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """Per table the JSON of SPEC section 7, per link its metrics, per person table the enriched scoring, per
        time series link its metrics."""
        return {"tables": {name: evaluation.to_json() for name, evaluation in self.tables.items()},
                "links": {link: _metrics_json(metrics) for link, metrics in self.links.items()},
                "persons": {name: evaluation.to_json() for name, evaluation in self.persons.items()},
                **({"series": {link: _metrics_json(metrics) for link, metrics in self.series.items()}}
                   if self.series else {}),
                **({"trends": {link: result.to_json() for link, result in self.trends.items()}}
                   if self.trends else {})}


def evaluate_linked(dataset: Dataset, working: Mapping[str, pd.DataFrame], holdout: Mapping[str, pd.DataFrame | None],
                    avatars: Mapping[str, pd.DataFrame], *, paired_orders: Mapping[str, np.ndarray | None],
                    seed: int = 0, knowledge: Knowledge = Knowledge()) -> LinkedEvaluation:
    """Score linked tables' ``avatars`` against the ``working`` rows they were made from and the ``holdout`` rows
    (the half the run set aside, whole families: a real holdout; None: halves drawn with ``seed``);
    ``paired_orders[name]``: the avatars' row made from each working row (Avatar), or None (avatars not paired, as
    another tool's). The attacker's ``knowledge`` goes to the scoring of
    each individual-level table (with its descendants' aggregates) that has every variable it names."""
    keys = {name: _keys(dataset, name) for name in dataset.tables}
    attacked = attacked_tables(dataset, working, knowledge)

    tables = {}
    for name in dataset.tables:
        made, order = avatars[name].drop(columns=keys[name]), paired_orders.get(name)
        held, originals = holdout.get(name), working[name].drop(columns=keys[name])
        if originals.columns.empty:
            continue  # keys only: nothing of the originals to measure (its children say the rest)
        alone = dataset.is_individual_level(name) and not dataset.child_links(name)
        with named(name):  # a refusal names its table (a table of 2 rows: 1 in its working half)
            tables[name] = evaluate(originals, made if order is None else made.iloc[order].reset_index(drop=True),
                                    holdout=None if held is None else held.drop(columns=keys[name]),
                                    paired=order is not None, seed=seed, holdout_kind=Holdout.REAL,
                                    column_kinds=declared_kinds(dataset, name, originals),
                                    knowledge=knowledge if alone and name in attacked else Knowledge(),
                                    relations=dataset.tables[name].relations)  # as the table asks, not found again
    links = {link.describe(): link_metrics(_link_context(dataset, link, working, holdout, avatars, keys, seed))
             for link in dataset.links}
    persons = {}
    plan = _EnrichmentPlan(dataset, keys, working)  # the kinds and modalities of the working originals, once
    for name in dataset.tables:
        if not dataset.is_individual_level(name) or not dataset.child_links(name):
            continue
        made, order = plan.enriched(name, avatars), paired_orders.get(name)
        held = holdout.get(name)
        originals = plan.enriched(name, working)
        persons[name] = evaluate(originals, made if order is None else made.iloc[order].reset_index(drop=True),
                                 holdout=None if held is None or any(holdout.get(other) is None  # its family's
                                                                     for other in dataset.family(name))
                                 else plan.enriched(name, holdout), paired=order is not None, seed=seed,
                                 holdout_kind=Holdout.REAL, column_kinds={column: kind for column, kind in plan.aggregated.items()
                                               if column in originals}, knowledge=knowledge if name in attacked else Knowledge(),
                                 relations=dataset.tables[name].relations)
    views = {link.describe(): series_view(dataset, link, working, holdout, avatars, seed)
             for link in dataset.links if link.method is LinkMethod.TIME_SERIES}
    series = {name: series_metrics(series_context(view, Parameters().for_table(dataset.tables[view.table])))
              for name, view in views.items()}
    return LinkedEvaluation(tables, links, persons, series, series_views=views)


def attacked_tables(dataset: Dataset, frames: Mapping[str, pd.DataFrame], knowledge: Knowledge) -> list[str]:
    """The individual-level tables whose persons (with their descendants' aggregates) have every variable the
    attacker's ``knowledge`` names: those it is applied to; none named, none; named but in none, refused in one
    line (before any work, on the originals ``frames``)."""
    named = {*knowledge.known, *knowledge.sensitive, *(name for group in knowledge.groups or () for name in group)}
    if not named:
        return []
    keys = {name: _keys(dataset, name) for name in dataset.tables}
    people = [name for name in dataset.tables if dataset.is_individual_level(name)]
    plan = _EnrichmentPlan(dataset, keys, frames)
    attacked = [name for name in people if named <= set(plan.enriched(name, frames).columns)]
    if not attacked:
        raise InputError(_(
            "The known and sensitive variables ({names}) must all be columns of one individual-level table ({tables}) "
            "or of its descendants' aggregates (such as \"{example}\"); check their spelling."
        ).format(names=", ".join(sorted(named)), tables=", ".join(people),
                 example=next((number_name(link.child) for name in people for link in dataset.child_links(name)),
                              "stays: number")))
    return attacked


def person_columns(dataset: Dataset, frames: Mapping[str, pd.DataFrame], name: str) -> list[str]:
    """The columns of table ``name`` as its scoring reads each of its rows: with everything about it (its
    descendants' aggregates, such as "stays: number"), its keys left out; read on the originals ``frames``, so that
    what an analysis names is checked before any work."""
    keys = {table: _keys(dataset, table) for table in dataset.tables}
    return list(_EnrichmentPlan(dataset, keys, frames).enriched(name, frames).columns)


def declared_kinds(dataset: Dataset, name: str, frame: pd.DataFrame) -> dict[str, str]:
    """The kinds table ``name``'s description gives its columns in ``frame``, a series' time a time (a number or a
    date: issue 45, MASS's Sitka measured on 5 days, its time read as 5 categories and scored 22.7 / 100)."""
    table = dataset.tables[name]
    declared = {column: kind for column, kind in table.column_kinds.items() if column in frame}
    if dataset.is_series(name) and table.time is not None and table.time in frame:
        time = frame[table.time]
        declared.setdefault(table.time, (Kind.DATETIME if not pd.api.types.is_numeric_dtype(time) else
                                         Kind.NUMERIC).value)
    return declared


def _keys(dataset: Dataset, name: str) -> list[str]:
    table = dataset.tables[name]
    return list(dict.fromkeys([*([table.primary_key] if table.primary_key else []),
                               *(link.foreign_key for link in dataset.parent_links(name))]))


def _link_context(dataset: Dataset, link: Link, working: Mapping[str, pd.DataFrame],
                  holdout: Mapping[str, pd.DataFrame | None], avatars: Mapping[str, pd.DataFrame],
                  keys: Mapping[str, list[str]], seed: int) -> LinkContext:
    """What the metrics of ``link`` read: its real halves are the working originals' and the holdout's families, or
    two halves of the working families drawn from ``seed`` when no holdout was kept."""
    real = (working[link.parent], working[link.child])
    if holdout.get(link.parent) is not None and holdout.get(link.child) is not None:
        halves = real, (holdout[link.parent], holdout[link.child])
    else:
        halves = join.family_halves(*real, link, np.random.default_rng(seed))
    declared = {**declared_kinds(dataset, link.child, working[link.child]), **{
        join.PARENT_COLUMN.format(parent=link.parent, column=column): kind
        for column, kind in declared_kinds(dataset, link.parent, working[link.parent]).items()}}
    return LinkContext(dataset, link, real, halves, (avatars[link.parent], avatars[link.child]),
                       [*keys[link.parent], *keys[link.child]], declared)


class _EnrichmentPlan:
    """Each table's rows with their descendants' aggregates, bottom-up: per child link the number of children, the
    mean of each numeric column (the child's own aggregates included) and the share of each of its
    :data:`SHARED_MODALITIES` most frequent modalities; the kinds and modalities read on the ``reference`` (the
    working originals) so that every side gets the same columns."""

    def __init__(self, dataset: Dataset, keys: Mapping[str, list[str]], reference: Mapping[str, pd.DataFrame]):
        self.dataset, self.keys = dataset, keys
        self.kinds: dict[str, dict[str, Kind]] = {}
        self.modalities: dict[tuple[str, str], list[object]] = {}
        self.aggregated: dict[str, str] = {}  # every aggregate column: numeric, whatever its values look like
        for name in reversed(dataset.top_down()):  # each table after its children
            enriched = self.enriched(name, reference)
            declared = declared_kinds(dataset, name, enriched)
            self.kinds[name] = resolve_kinds(enriched, {**declared, **{column: kind for column, kind in
                                                                       self.aggregated.items() if column in enriched}})
            for column, kind in self.kinds[name].items():
                if kind is Kind.CATEGORICAL:
                    counts = enriched[column].astype("string").value_counts()
                    self.modalities[(name, column)] = list(counts.index[:SHARED_MODALITIES])

    def enriched(self, name: str, frames: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
        """The rows of table ``name`` in ``frames``, their keys left out, with their descendants' aggregates."""
        frame = frames[name]
        columns = {column: frame[column].reset_index(drop=True) for column in frame.columns
                   if column not in self.keys[name]}
        for link in self.dataset.child_links(name):
            added = self._aggregates(link, frame, frames[link.child], self.enriched(link.child, frames))
            shadowed = next((column for column in added if column in columns), None)
            if shadowed is not None:  # one of the two would be lost: refused, not chosen silently
                raise InputError(f"Table '{name}': its column '{shadowed}' has the name of what its rows in "
                                 f"'{link.child}' add up to, which the privacy metrics add to each of its rows: "
                                 "rename the column.")
            columns |= added
        return pd.DataFrame(columns)

    def _aggregates(self, link: Link, parents: pd.DataFrame, children: pd.DataFrame, enriched: pd.DataFrame
                    ) -> dict[str, np.ndarray]:
        rows = pd.Index(key_values(parents[link.key])).get_indexer(key_values(children[link.foreign_key]))
        present, n_parents = rows >= 0, len(parents)
        counts = np.bincount(rows[present], minlength=n_parents).astype(float)
        added = {number_name(link.child): counts}
        for column, kind in self.kinds[link.child].items():
            if kind is Kind.NUMERIC:
                values = np.asarray(numeric_values(enriched[column]), dtype=float)[present]
                known = ~np.isnan(values)
                sums = np.bincount(rows[present][known], weights=values[known], minlength=n_parents)
                seen = np.bincount(rows[present][known], minlength=n_parents)
                added[mean_name(link.child, column)] = np.divide(sums, seen, out=np.full(n_parents, np.nan),
                                                                  where=seen > 0)
            elif kind is Kind.CATEGORICAL:
                text = enriched[column].astype("string")[present]
                for modality in self.modalities[(link.child, column)]:
                    hits = np.bincount(rows[present], weights=text.eq(modality).fillna(False).to_numpy(dtype=float),
                                       minlength=n_parents)
                    added[share_name(link.child, column, modality)] = np.divide(
                        hits, counts, out=np.full(n_parents, np.nan), where=counts > 0)
        if link.method is LinkMethod.TIME_SERIES:
            added |= self._trends(link, rows[present], enriched[present], n_parents)
        self.aggregated |= dict.fromkeys(added, Kind.NUMERIC.value)
        return added

    def _trends(self, link: Link, rows: np.ndarray, measures: pd.DataFrame, n_parents: int) -> dict[str, np.ndarray]:
        """A time series' person with their follow-up's span and each numeric variable's slope over time (SPEC 13:
        privacy with the series included), missing for a person of fewer than two times."""
        time = self.dataset.tables[link.child].time
        assert time is not None, "a time series' table has its time column (checked with the dataset)"
        kind = self.kinds[link.child][time]
        typed = typed_like(measures[[time]], {time: kind}, N_("In the avatars: {error}"))[time]  # a file's dates read
        times = np.asarray(numeric_values(typed), dtype=float) / (DAY_S if kind is Kind.DATETIME else 1.0)  # as text
        timing = series_of(rows, times, np.zeros(len(rows)))
        span = np.full(n_parents, np.nan)
        span[timing.persons] = timing.timing()[:, 2]
        added = {f"{link.child}: span {time}": span}
        for column, kind in self.kinds[link.child].items():
            if kind is Kind.NUMERIC and column != time:
                series = series_of(rows, times, np.asarray(numeric_values(measures[column]), dtype=float))
                slopes = np.full(n_parents, np.nan)
                slopes[series.persons[series.counts >= 2]] = person_slopes(series)
                added[f"{link.child}: slope {column}"] = slopes
        return added


def _metrics_json(metrics: Mapping[str, MetricResult]) -> dict[str, Any]:
    return {name: {"value": result.value, "not_applicable": result.not_applicable,
                   **({"passed": result.passed} if result.target is not None else {}), **finite(_shown_breakdown(result))}
            for name, result in metrics.items()}


def _shown_breakdown(result: MetricResult) -> dict[str, Any]:
    kept = ("unresolved", "named", "cardinality_shape_similarity", "real_share", "avatar_share", "per_variable",
            "reference_difference", "avatar_difference", "per_statistic", "per_relation", "order")
    return {name: value for name, value in result.breakdown.items() if name in kept}
