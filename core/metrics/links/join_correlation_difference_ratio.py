"""The Correlation Difference Ratio of a link's join (SPEC 12; seed 003 on each child beside its parent): the avatars' join against
the holdout's, the working half's as the original (:mod:`core.metrics.links.join`)."""

from __future__ import annotations

from core.metrics.context import LinkContext
from core.metrics.correlation_difference_ratio import DEFINITION as CORRELATION_DIFFERENCE_RATIO
from core.metrics.correlation_difference_ratio import correlation_difference_ratio
from core.metrics.result import MetricResult

DEFINITION = CORRELATION_DIFFERENCE_RATIO  # the table metric's, on the join's columns


def compute(context: LinkContext) -> MetricResult:
    if context.joins_not_applicable:
        return DEFINITION.result(None, not_applicable=context.joins_not_applicable)
    joins = context.joins
    return correlation_difference_ratio(joins.working, joins.holdout, joins.avatars, joins.kinds)
