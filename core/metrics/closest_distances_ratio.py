"""Closest distances ratio (SPEC section 6): the median over avatars of d1 / d2, the distances to the two
nearest originals (1 when d2 = 0).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from core.metrics.definition import LINKABILITY, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

DEFINITION = MetricDefinition(
    name="closest_distances_ratio", label="Closest distances ratio", unit="", goal="maximize", bounds=(0.0, 1.0),
    interpretation="For a typical avatar, the distance to its nearest real individual divided by the distance to "
    "the second nearest. Near 0, an avatar points at one person; near 1, it sits between several.",
    criterion=LINKABILITY, target=0.3,
)


def compute(context: PrivacyContext) -> MetricResult:
    """The median of d1 / d2 over avatars (at least two originals)."""
    if context.reference.tree is None:
        return DEFINITION.result(None, not_applicable="Not applicable: it needs at least two originals.")
    nearest, second = context.nearest_two
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(second > 0, nearest / second, 1.0)
    return DEFINITION.result(float(np.median(ratios)), breakdown={"ratios": ratios})
