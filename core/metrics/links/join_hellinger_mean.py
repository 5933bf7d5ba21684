"""The Hellinger Mean of a link's join (SPEC 12; seed 002 on each child beside its parent): the avatars' join against
the holdout's, the working half's as the original (:mod:`core.metrics.links.join`)."""

from __future__ import annotations

from core.metrics.context import LinkContext
from core.metrics.hellinger_mean import DEFINITION as HELLINGER_MEAN
from core.metrics.hellinger_mean import hellinger_mean
from core.metrics.result import MetricResult

DEFINITION = HELLINGER_MEAN  # the table metric's, on the join's columns


def compute(context: LinkContext) -> MetricResult:
    if context.joins_not_applicable:
        return DEFINITION.result(None, not_applicable=context.joins_not_applicable)
    joins = context.joins
    return hellinger_mean(joins.working, joins.holdout, joins.avatars, joins.kinds)
