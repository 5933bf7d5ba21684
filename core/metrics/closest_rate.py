"""Closest rate (SPEC section 6.2, singling out): the share of avatars not closer to a real person than a new real
person naturally is.

An avatar is *at risk* when both its distance to the nearest original and its closest distances ratio are below
the 5th percentile of the same two quantities for the holdout's real persons against the originals (each control
apart from itself when it is one of them; at most ``CONTROL_SAMPLE`` of them, drawn once, see
:mod:`core.metrics.context`). Closest rate = 100 x (1 - share at risk).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from core.i18n import N_
from core.metrics.closest_distances_ratio import distance_ratios
from core.metrics.definition import SINGLING_OUT, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

DEFINITION = MetricDefinition(
    name="closest_rate", label=N_("Closest rate"), unit="%", goal="maximize", bounds=(0.0, 100.0),
    interpretation=N_("Share of avatars that are no closer to a real person than a new real person usually is: an "
                      "avatar closer than 95 % of newcomers points at someone."), criterion=SINGLING_OUT, target=90.0,
    computation=N_("At risk: an avatar whose distance to the nearest real person and whose ratio of the two nearest "
                   "distances are both below the 5th percentile of the same figures for real people of the holdout (a "
                   "sample drawn once when they are many)."),
)
CONTROL_PERCENTILE = 5.0


def compute(context: PrivacyContext) -> MetricResult:
    """100 x (1 - the share of avatars below both control percentiles)."""
    if context.sides is None or len(context.reference.coordinates) < 3 or len(context.sides.controls) == 0:
        return DEFINITION.result(None, not_applicable=N_(
            "Not applicable: it needs real people kept apart (a holdout) and at least three originals."))
    control_nearest, control_second = context.control_nearest_two
    distance_limit = np.percentile(control_nearest, CONTROL_PERCENTILE)
    ratio_limit = np.percentile(distance_ratios(control_nearest, control_second), CONTROL_PERCENTILE)
    nearest, second = context.nearest_two
    at_risk = (nearest < distance_limit) & (distance_ratios(nearest, second) < ratio_limit)
    return DEFINITION.result(float(100 * (1 - at_risk.mean())), breakdown={
        "avatars_at_risk": int(at_risk.sum()), "distance_limit": float(distance_limit),
        "ratio_limit": float(ratio_limit), "approximate_control": context.sides.approximate,
        "controls_read": len(control_nearest)})
