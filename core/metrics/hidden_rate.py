"""Hidden rate (SPEC sections 6 and 6.1): the share of originals whose own avatar is not the nearest.

An original is *hidden* when at least one other avatar is strictly closer to it than its own avatar (a tie
with its own avatar does not hide it), so that the hidden rate is the share of originals whose local cloaking
(:mod:`core.metrics.local_cloaking`) is at least 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from core.metrics.definition import SINGLING_OUT, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

DEFINITION = MetricDefinition(
    name="hidden_rate", label="Hidden rate", unit="%", goal="maximize", bounds=(0.0, 100.0),
    interpretation="Share of individuals whose own avatar is not the closest one to them: an attacker who links "
    "each person to the nearest avatar is wrong this often.", criterion=SINGLING_OUT, target=90.0,
)


def compute(context: PrivacyContext) -> MetricResult:
    """100 x the share of originals with at least one avatar strictly closer than their own (paired only)."""
    if not context.paired:
        return DEFINITION.result(None, not_applicable=context.unpaired_reason)
    return DEFINITION.result(float(100 * np.mean(context.closer.counts >= 1)))
