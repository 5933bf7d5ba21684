"""Broken relations (issue 30): the share of avatars that break each relation holding between the originals'
columns (a derived column, a threshold, an order, a total: :mod:`core.dataset.relations`), beside the same share in
the originals (0 for a relation found on them, more for one declared that they hold only approximately).

The value is the largest share of avatars breaking one relation, in %: 0 when every relation is kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from core.i18n import N_
from core.metrics.definition import SIGNAL, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import SignalContext

BROKEN_RELATIONS_TEXT = N_(
    "The closer to 0, the more the avatars keep the rules that hold between the original columns (a label set by "
    "its code, a threshold such as low = weight < 2500, an order such as admission before discharge, a total equal "
    "to the sum of its parts). Above 0: some avatars break a rule no real row breaks, which a reader notices."
)
BROKEN_RELATIONS_COMPUTATION = N_(
    "For each relation found exact on the originals (or declared), the share of avatars that break it (a derived "
    "value differing from the one computed from its sources, a later value before the earlier one); the value is "
    "the largest of these shares, each shown beside the same share in the originals."
)
DEFINITION = MetricDefinition(
    name="broken_relations", label=N_("Broken relations"), unit="%", goal="minimize", bounds=(0.0, 100.0),
    interpretation=BROKEN_RELATIONS_TEXT, computation=BROKEN_RELATIONS_COMPUTATION, criterion=SIGNAL,
    bands=((1e-9, "good", N_("every relation kept")), (1.0, "fair", N_("some avatars break a rule")),
           (np.inf, "poor", N_("relations broken"))),
)
NO_RELATION = N_("Not applicable: no relation between columns holds exactly on the originals.")


def compute(context: SignalContext) -> MetricResult:
    """The largest share of WA breaking one of the context's relations, each relation's shares in WO and WA."""
    if not context.relations:
        return DEFINITION.result(None, not_applicable=NO_RELATION)
    shares = [(relation, 100 * relation.breaking_share(context.working), 100 * relation.breaking_share(context.avatars))
              for relation in context.relations]
    return DEFINITION.result(max(avatars for _, _, avatars in shares), breakdown={"per_relation": shares})
