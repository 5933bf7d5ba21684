"""Referential integrity (SPEC 12; SDMetrics' ReferentialIntegrity): the share of a child table's foreign keys that
resolve to a row of the parent, among those that are not missing. Must be 100 %: a child's foreign key naming no
parent avatar breaks every join a user makes. A missing foreign key (a child without a parent, kept in the
originals' share) is not counted."""

from __future__ import annotations

import pandas as pd

from core.dataset import Link
from core.dataset.keys import key_values
from core.i18n import N_
from core.metrics.context import LinkContext
from core.metrics.definition import SIGNAL, MetricDefinition
from core.metrics.result import MetricResult

DEFINITION = MetricDefinition(
    name="referential_integrity", label=N_("Referential integrity"), unit="%", goal="maximize", bounds=(0.0, 100.0),
    interpretation=N_("Must be 100: every child avatar that names a parent names one of the parent avatars, so the "
                      "tables join as the originals do."),
    computation=N_("The share of the child table's foreign keys, among those not missing, found among the parent "
                   "table's primary keys."),
    criterion=SIGNAL, target=100.0, inclusive=True,
)
NO_KEY = N_("Not applicable: no child row names a parent.")


def referential_integrity(parents: pd.DataFrame, children: pd.DataFrame, link: Link) -> MetricResult:
    """The share of ``children``'s present ``link.foreign_key`` values among ``parents``' ``link.key``."""
    foreign = children[link.foreign_key].dropna()
    if foreign.empty:
        return DEFINITION.result(None, not_applicable=NO_KEY)
    resolved = key_values(foreign).isin(key_values(parents[link.key]))
    return DEFINITION.result(100.0 * float(resolved.mean()),
                             breakdown={"unresolved": int((~resolved).sum()), "named": int(len(foreign))})


def compute(context: LinkContext) -> MetricResult:
    return referential_integrity(*context.avatars, context.link)
