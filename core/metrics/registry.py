"""Every metric, in the order the command line, the JSON, the pages and the report show them.

A metric is a module with a ``DEFINITION`` (:class:`~core.metrics.definition.MetricDefinition`) and a
``compute(context)`` (see :mod:`core.metrics.hidden_rate` for a small one). To add one: write its module and add
it to one of the tuples below. Everything that lists metrics (the
command line's table, the JSON, the pages, the report, the sweep's axes and targets) reads this registry.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType

from core.engine.timing import timed
from core.metrics import (
    broken_relations,
    closest_distances_ratio,
    closest_rate,
    column_direct_match_protection,
    correlation_difference_ratio,
    correlation_protection_rate,
    distance_to_closest,
    hellinger_mean,
    hidden_rate,
    identifier_protection,
    inference_risk,
    linkability_risk,
    local_cloaking,
    multivariate_hellinger,
    row_direct_match_protection,
)
from core.metrics.context import PrivacyContext, SignalContext
from core.metrics.definition import MetricDefinition
from core.metrics.result import MetricResult

SIGNAL_METRICS = (hellinger_mean, correlation_difference_ratio, multivariate_hellinger, broken_relations)
PRIVACY_METRICS = (  # by the criterion they answer (SPEC 6.2), in its order
    hidden_rate, local_cloaking, row_direct_match_protection, closest_rate, identifier_protection,
    linkability_risk, correlation_protection_rate, distance_to_closest, closest_distances_ratio,
    inference_risk, column_direct_match_protection,
)
DEFINITIONS: dict[str, MetricDefinition] = {module.DEFINITION.name: module.DEFINITION
                                            for module in (*SIGNAL_METRICS, *PRIVACY_METRICS)}
TARGETS = {module.DEFINITION.name: module.DEFINITION.target for module in PRIVACY_METRICS}


def signal_metrics(context: SignalContext, timings: dict[str, float] | None = None) -> dict[str, MetricResult]:
    """Every signal metric of SPEC section 5, keyed by its JSON name (seconds per metric into ``timings``)."""
    return _computed(SIGNAL_METRICS, context, timings)


def privacy_metrics(context: PrivacyContext, timings: dict[str, float] | None = None) -> dict[str, MetricResult]:
    """Every privacy metric of SPEC section 6, keyed by its JSON name (seconds per metric into ``timings``)."""
    return _computed(PRIVACY_METRICS, context, timings)


def _computed(modules: Iterable[ModuleType], context: SignalContext | PrivacyContext,
              timings: dict[str, float] | None) -> dict[str, MetricResult]:
    timings = {} if timings is None else timings
    results = {}
    for module in modules:
        with timed(timings, module.DEFINITION.name):
            results[module.DEFINITION.name] = module.compute(context)
    return results
