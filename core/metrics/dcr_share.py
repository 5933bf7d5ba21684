"""DCR share (MOSTLY AI's quality report, ``mostlyai-qa``; issue 49): the share of avatars closer to a real person
they were made from than to a real person of the holdout, ties counted half.

Synthetic rows that are no nearer to the people used than to new people give ``n_used / (n_used + n_holdout)``, 50 %
with halves of one size. Avatars are local combinations of the people used, so they sit nearer them than the holdout
does and their share is above it by the method's design: a peer's report flags that share, read for generative
models; the hidden rate, local cloaking, the closest rate and the attacks with their control are the tests built for
avatars. Shown beside them, with that reading, and left out of the verdict (docs/decisions.md, "The DCR share").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from core.engine.neighbours import nearest_within
from core.i18n import N_
from core.metrics.definition import LINKABILITY, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

DEFINITION = MetricDefinition(
    name="dcr_share", label=N_("DCR share"), unit="%", goal="minimize", bounds=(0.0, 100.0),
    interpretation=N_("Share of avatars closer to a real person used to make them than to a real person of the "
                      "holdout (MOSTLY AI's quality report reads 50 % as ideal). Avatars mix the people nearest "
                      "each person used, so a share above 50 % follows from the method and is not in the verdict: "
                      "the hidden rate, local cloaking, the closest rate and the attacks with their control test "
                      "what it would point at."), criterion=LINKABILITY,
    computation=N_("Each avatar's distance to the nearest real person used and to the nearest real person of the "
                   "holdout, in the latent space; the share where the first is smaller, ties counted half."),
)


def dcr_share(to_used: np.ndarray, to_holdout: np.ndarray) -> float:
    """100 x (the share of ``to_used < to_holdout`` + half the share of ties)."""
    return float(100 * (np.mean(to_used < to_holdout) + np.mean(to_used == to_holdout) / 2))


def compute(context: PrivacyContext) -> MetricResult:
    """The DCR share against the real holdout (none with an approximate one: its people were used)."""
    sides = context.sides
    if sides is None or sides.approximate or len(sides.controls) == 0 or context.reference.tree is None:
        return DEFINITION.result(None, not_applicable=N_(
            "Not applicable: it needs a real holdout (people never used to make avatars) and two originals."))
    to_used, _ = context.nearest_two
    # only whether the holdout is nearer, as near or farther matters: searched no farther than the nearest used
    to_holdout = nearest_within(context.reference.control_tree(sides.coordinates), context.avatar_coordinates, to_used)
    n_used, n_holdout = len(context.reference.coordinates), len(sides.coordinates)
    return DEFINITION.result(dcr_share(to_used, to_holdout), breakdown={
        "as_near_as_new_people": 100 * n_used / (n_used + n_holdout), "people_used": n_used,
        "holdout_people": n_holdout})
