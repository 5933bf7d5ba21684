"""Hidden rate (SPEC sections 6 and 6.1): the share of originals whose own avatar is not the nearest.

An attacker links each original to its nearest avatar, picking at random among avatars tied at the same distance.
With ``c_i`` avatars strictly closer than the own avatar and ``t_i`` others exactly as close
(:mod:`core.metrics.local_cloaking`), original ``i`` is hidden with probability 1 when ``c_i > 0``, else
``1 - 1 / (t_i + 1)``; the hidden rate is 100 x their mean. Without ties, the share of originals with an avatar
strictly closer than their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from core.i18n import N_
from core.metrics.definition import SINGLING_OUT, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

DEFINITION = MetricDefinition(
    name="hidden_rate", label=N_("Hidden rate"), unit="%", goal="maximize", bounds=(0.0, 100.0),
    interpretation=N_("Share of individuals whose own avatar is not the closest one to them: an attacker who links "
                      "each person to the nearest avatar is wrong this often."), criterion=SINGLING_OUT, target=90.0,
)


def compute(context: PrivacyContext) -> MetricResult:
    """100 x the mean probability that an original's nearest avatar, ties broken at random, is not its own."""
    if not context.paired:
        return DEFINITION.result(None, not_applicable=context.unpaired_reason)
    hidden = context.closer.hidden
    return DEFINITION.result(float(100 * np.mean(hidden)), breakdown={"hidden": hidden})
