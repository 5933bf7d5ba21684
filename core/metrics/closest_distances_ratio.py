"""Closest distances ratio (SPEC section 6): the median over avatars of d1 / d2, the distances to the two nearest
originals (1 when d2 = 0); left out of the verdict when most rows repeat (SPEC 6.1) or when the ratio of real people
never used is itself below the target (SPEC 6.3, revised again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from core.i18n import N_
from core.metrics.definition import LINKABILITY, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

TARGET = 0.3
DEFINITION = MetricDefinition(
    name="closest_distances_ratio", label=N_("Closest distances ratio"), unit="", goal="maximize", bounds=(0.0, 1.0),
    interpretation=N_("For a typical avatar, the distance to its nearest real individual divided by the distance to "
                      "the second nearest. Near 0, an avatar points at one person; near 1, it sits between several."),
    criterion=LINKABILITY, target=TARGET,
)


def distance_ratios(nearest: np.ndarray, second: np.ndarray) -> np.ndarray:
    """d1 / d2 per point, 1 where d2 = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(second > 0, nearest / second, 1.0)


def compute(context: PrivacyContext) -> MetricResult:
    """The median of d1 / d2 over avatars (at least two originals)."""
    if context.reference.tree is None:
        return DEFINITION.result(None, not_applicable=N_("Not applicable: it needs at least two originals."))
    ratios = distance_ratios(*context.nearest_two)
    median = float(np.median(ratios))
    return DEFINITION.result(median, breakdown={"ratios": ratios}, note=context.reference.repeated_note
                             or context.out_of_reach_note(TARGET, 1, median))
