"""Broken sequences (issue 45): the share of a child table's avatar families that break a relation every real
family holds across its rows (a counter 1..n, each row starting where the previous stopped, a first value fixed, a
running total, an ordered column: :mod:`core.dataset.relations.sequence`), beside the same share among the real
families (0 for a relation found on them).

On survival's ``cgd`` split into patients and their infection-free intervals, every one of the 44 real patients with
several intervals has them in sequence, none of the 58 such avatar patients did, and the intervals table still
scored a Hellinger Mean of 97.9 / 100: the marginals cannot see an order. The value is the largest share of avatar
families breaking one relation, in %: 0 when every family keeps every relation.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from core.dataset import Dataset, Kind, Link
from core.engine.linked_tables import family_codes, family_sequences
from core.engine.schema import resolve_kinds
from core.i18n import N_
from core.metrics.context import LinkContext
from core.metrics.definition import SIGNAL, MetricDefinition
from core.metrics.inputs import typed_like
from core.metrics.result import MetricResult

DEFINITION = MetricDefinition(
    name="broken_sequences", label=N_("Broken sequences"), unit="%", goal="minimize", bounds=(0.0, 100.0),
    interpretation=N_("The closer to 0, the more each avatar family keeps what every real family holds across its rows "
                      "(a counter 1, 2, 3..., each row starting where the previous one stopped, a first value, a "
                      "running total, dates in order). Above 0: some avatar families break a rule no real one breaks."),
    computation=N_("For each relation found on every real family, the share of avatar families that break it; the "
                   "value is the largest of these shares, each shown beside the same share among the real families."),
    criterion=SIGNAL,
    bands=((1e-9, "good", N_("every sequence kept")), (5.0, "fair", N_("some families out of sequence")),
           (np.inf, "poor", N_("sequences broken"))),
)
NO_SEQUENCE = N_("Not applicable: no relation holds across the rows of every real family (a counter, a chain of "
                 "intervals, a first value, a running total, an order).")


def broken_sequences(dataset: Dataset, link: Link, originals: pd.DataFrame, avatars: pd.DataFrame) -> MetricResult:
    """The largest share of avatar families breaking a relation found on the real families of ``link``'s child."""
    table = dataset.tables[link.child]
    own = [column for column in originals.columns
           if column not in (table.primary_key, *(other.foreign_key for other in dataset.parent_links(link.child)))]
    kinds = resolve_kinds(originals[own], {column: kind for column, kind in table.column_kinds.items()
                                           if column in own})
    sequences = family_sequences(dataset, link, originals, kinds)
    if not sequences.relations:
        return DEFINITION.result(None, not_applicable=NO_SEQUENCE)
    typed = _typed(avatars, kinds)
    real = sequences.broken_families(_typed(originals, kinds), family_codes(link, originals))
    made = sequences.broken_families(typed, family_codes(link, avatars))
    rows = [{**relation.to_dict(), "sentence": relation.sentence(), "real_share": _share(broken, families),
             "real_broken": broken, "real_families": families, "avatar_share": _share(avatar_broken, avatar_families),
             "avatar_broken": avatar_broken, "avatar_families": avatar_families}
            for (relation, broken, families), (_relation, avatar_broken, avatar_families) in zip(real, made, strict=True)]
    return DEFINITION.result(max(row["avatar_share"] for row in rows), breakdown={"per_relation": rows,
                                                                                 "order": sequences.order})


def compute(context: LinkContext) -> MetricResult:
    return broken_sequences(context.dataset, context.link, context.real[1], context.avatars[1])


def _typed(frame: pd.DataFrame, kinds: Mapping[str, Kind]) -> pd.DataFrame:
    """``frame``'s own columns typed as the originals' (another tool's dates read as text), its keys kept."""
    typed = typed_like(frame[list(kinds)], kinds, N_("In the avatars: {error}"))
    return frame.assign(**{column: typed[column] for column in kinds})


def _share(broken: int, families: int) -> float:
    return 100.0 * broken / families if families else 0.0
