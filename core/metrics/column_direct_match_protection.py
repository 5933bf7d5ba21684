"""Column direct match protection (SPEC section 6): min over variables of 100 x (1 - m_v x u_v), m_v the share
of avatars equal to their own original on v, u_v the unique-value share of v among the originals (distinct
values, missing counting as one, divided by the number of originals).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from core.i18n import N_
from core.metrics.definition import INFERENCE, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

DEFINITION = MetricDefinition(
    name="column_direct_match_protection", label=N_("Column direct match protection"), unit="%", goal="maximize",
    bounds=(0.0, 100.0), interpretation=N_("For the most exposed column: how rarely avatars copy their own original's "
                                           "value, weighted by how identifying that column's values are."),
    criterion=INFERENCE, target=50.0,
)


def compute(context: PrivacyContext) -> MetricResult:
    """The weakest variable's protection, with every variable's in the breakdown (paired avatars only)."""
    if not context.paired:
        return DEFINITION.result(None, not_applicable=context.unpaired_reason)
    reference, avatar_rows = context.reference, context.avatar_rows
    per_variable, protections = [], []
    for name, unique_share in reference.unique_shares.items():
        match_share = float(np.mean(reference.rows[name].to_numpy() == avatar_rows[name].to_numpy()))
        protections.append(float(100 * (1 - match_share * unique_share)))
        per_variable.append({
            "variable": name, "match_share": match_share, "unique_share": float(unique_share),
            "protection": protections[-1],
        })
    return DEFINITION.result(min(protections), breakdown={"per_variable": per_variable})
