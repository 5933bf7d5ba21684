"""The relations of a table kept in its avatars (issue 30): found on the typed originals (or given), each derived
column left out of the synthesis and computed from its sources in every avatar, an order's later column
synthesized as its non-negative difference from the earlier one and rebuilt from it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from core.dataset.relations import Monotone, Order, Relation, RelationsAsked, Total, declared_relation, find_relations
from core.dataset.relations.base import decimals, is_date
from core.dataset.relations.columns import TableColumns, table_columns
from core.dataset.relations.order import as_numbers
from core.dataset.roles import Kind
from core.errors import InputError
from core.i18n import _

DATE_UNITS = ("D", "h", "min", "s", "ms", "us", "ns")  # a date difference is counted in the coarsest that fits


@dataclass(frozen=True)
class KeptRelations:
    """The ``relations`` kept, and the unit each order's difference is synthesized in (``units``, by its later
    column: a date unit of :data:`DATE_UNITS`, or a number's decimals)."""

    relations: tuple[Relation, ...] = ()
    units: Mapping[str, str | int] = field(default_factory=dict)

    @classmethod
    def of(cls, typed: pd.DataFrame | TableColumns, kinds: Mapping[str, Kind], set_apart: Sequence[str],
           asked: Sequence[Relation] | RelationsAsked = RelationsAsked()) -> KeptRelations:
        """The relations of the typed table (a frame, or a batch run's typed columns: found on the whole table):
        those given, or what ``asked`` says: every one found between the columns that take part in the synthesis (but
        those ignored), with the declared ones (lines :func:`~core.dataset.relations.declared_relation` reads,
        learned on the table), which replace any found that clashes with them (computes a column they compute, reads a
        column they derive...: :func:`_clash`). Every relation given or declared is checked against the table."""
        typed = table_columns(typed)
        if isinstance(asked, RelationsAsked):
            stated = [declared_relation(text, typed) for text in asked.declared]
            found = find_relations(typed, [name for name in typed.names if name not in set_apart], kinds) \
                if asked.find else []
            relations = tuple(stated)
            for relation in found:  # a found one that clashes with a declared one (_clash) gives way to it
                if relation.computed not in asked.ignored and _clash((*relations, relation)) is None:
                    relations = (*relations, relation)
        else:
            stated, relations = list(asked), tuple(asked)
        if stated:
            _check_given(relations, typed.names, set(set_apart))
        orders = [relation for relation in relations if isinstance(relation, Order)]
        return cls(relations, {order.high: _unit(*(typed.whole([order.low, order.high])[column]
                                                   for column in (order.low, order.high))) for order in orders})

    @property
    def derived(self) -> list[str]:
        """The columns computed after the synthesis, which take no part in it."""
        return [relation.derived for relation in self.relations if relation.derived is not None]

    @property
    def orders(self) -> list[Order]:
        return [relation for relation in self.relations if isinstance(relation, Order)]

    def synthesis_kinds(self, kinds: Mapping[str, Kind]) -> dict[str, Kind]:
        """The kinds the synthesis sees: an order's later column is a number (the difference), a date's too."""
        return {**kinds, **{order.high: Kind.NUMERIC for order in self.orders}}

    def projection_weights(self, weights: Mapping[str, float] | None) -> dict[str, float] | None:
        """The variables' weights in the projection: a derived number's (a monotone function's, a total's; 1 unless
        given) passed to its sources, shared among a total's parts, so that the neighbour search weighs that
        information as it did with the copy in it. Measured over 12 seeds (Avatar, k = 10): Wage's Correlation
        Difference Ratio 18 without, 24 with (logwage's weight to wage); a threshold's or a set column's weight is not
        moved, birthwt's ratio being 83 without, 69 with (low's weight to bwt)."""
        derivations = [relation for relation in self.relations if isinstance(relation, (Monotone, Total))]
        if not derivations:
            return None if weights is None else dict(weights)
        moved = dict(weights or {})
        for relation in derivations:
            sources = [column for column in relation.columns if column != relation.derived]
            share = moved.pop(relation.derived, 1.0) / len(sources)
            for source in sources:
                moved[source] = moved.get(source, 1.0) + share
        return moved

    def synthesised(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` as the synthesis takes it: without the derived columns, each order's later column replaced by
        its difference from the earlier one."""
        frame = frame.drop(columns=self.derived)
        if not self.orders:
            return frame
        return frame.assign(**{order.high: self._difference(frame, order) for order in self.orders})

    def restored(self, avatars: pd.DataFrame) -> pd.DataFrame:
        """The avatars with each order's later column rebuilt from its synthesized difference (negative ones, which
        a model's draw may give, taken as 0), then each derived column computed from its sources."""
        for order in self.orders:
            avatars[order.high] = self._later(avatars, order)
        for relation in self.relations:
            if relation.derived is not None:
                avatars = relation.apply(avatars)
        return avatars

    def _difference(self, frame: pd.DataFrame, order: Order) -> np.ndarray:
        unit = self.units[order.high]
        difference = as_numbers(frame[order.high]) - as_numbers(frame[order.low])
        if isinstance(unit, str):
            return difference / pd.Timedelta(1, unit).value
        return np.round(difference, unit)

    def _later(self, avatars: pd.DataFrame, order: Order) -> pd.Series:
        unit = self.units[order.high]
        difference = np.maximum(pd.to_numeric(avatars[order.high]).to_numpy(dtype=float), 0.0)
        low = avatars[order.low]
        if isinstance(unit, str):
            return low + pd.to_timedelta(difference, unit=unit)
        later = np.round(pd.to_numeric(low).to_numpy(dtype=float) + difference, unit)
        whole = unit == 0 and not np.isnan(later).any()
        return pd.Series(later.astype("int64") if whole else later, index=avatars.index)


def _unit(low: pd.Series, high: pd.Series) -> str | int:
    """A date difference's unit: the coarsest of :data:`DATE_UNITS` every value of both columns is a whole number
    of; a number's: the decimals both columns are written with."""
    values = np.concatenate([as_numbers(low), as_numbers(high)])
    values = values[~np.isnan(values)]
    if is_date(low):
        whole = values.astype("int64")
        return next(unit for unit in DATE_UNITS if not (whole % pd.Timedelta(1, unit).value).any())
    return decimals(values)


def _check_given(relations: tuple[Relation, ...], columns: list[str], set_apart: set[str]) -> None:
    """Given relations name the table's synthesized columns and do not clash (:func:`_clash`)."""
    for relation in relations:
        for column in relation.columns:
            if column not in columns:
                raise InputError(_("The relation \"{relation}\" names the column '{column}', which the table does not "
                                   "have: check its spelling.").format(relation=relation.sentence(), column=column))
            if column in set_apart:
                raise InputError(_("The relation \"{relation}\" reads '{column}', which takes no part in the "
                                   "synthesis (a key, an identifier or a column set apart): leave the relation out, "
                                   "or give the column the synthesized role.").format(
                                       relation=relation.sentence(), column=column))
    clash = _clash(relations)
    if clash is not None:
        raise InputError(clash)


def _clash(relations: tuple[Relation, ...]) -> str | None:
    """Why ``relations`` cannot all be kept, or None: no column is computed twice, no derived column is read by
    another relation, and an order's later column is no order's earlier one (orders are rebuilt first, then the
    derived columns, so a relation may read an order's later column)."""
    written = [relation.computed for relation in relations if relation.computed is not None]  # each kept one computes one
    counts = Counter(written)
    twice = sorted({column for column in written if counts[column] > 1})
    if twice:
        return _("Two relations compute '{column}': keep one of them.").format(column=twice[0])
    targets = {relation.derived for relation in relations if relation.derived is not None}
    highs = {relation.high for relation in relations if isinstance(relation, Order)}
    for relation in relations:
        read = {relation.low} if isinstance(relation, Order) else set(relation.columns) - {relation.derived}
        clash = read & (targets | highs if isinstance(relation, Order) else targets)
        if clash:
            return _("The relation \"{relation}\" reads '{column}', which another relation computes: keep one of "
                     "them.").format(relation=relation.sentence(), column=sorted(clash)[0])
    return None
