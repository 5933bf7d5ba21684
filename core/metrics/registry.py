"""Every metric, in the order the command line, the JSON, the pages and the report show them.

A metric is a module with a ``DEFINITION`` (:class:`~core.metrics.definition.MetricDefinition`) and a
``compute(context)`` (see :mod:`core.metrics.hidden_rate` for a small one): a table's signal and privacy metrics, a
link's (SPEC 12) and a time series' (SPEC 13), each kind with its context (:mod:`core.metrics.context`). To add one:
write its module and add it to one of the tuples below. Everything that lists metrics (the
command line's table, the JSON, the pages, the report, the sweep's axes and targets) reads this registry.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from types import ModuleType

from core.engine.timing import timed
from core.i18n import N_
from core.metrics import (
    broken_relations,
    closest_distances_ratio,
    closest_rate,
    column_direct_match_protection,
    correlation_difference_ratio,
    correlation_protection_rate,
    dcr_share,
    disclosive_correct_original,
    distance_to_closest,
    hellinger_mean,
    hidden_rate,
    identifier_protection,
    inference_risk,
    linkability_risk,
    local_cloaking,
    multivariate_hellinger,
    propensity_mse,
    replicated_uniques,
    row_direct_match_protection,
)
from core.metrics.context import LinkContext, PrivacyContext, SeriesContext, SignalContext
from core.metrics.definition import MetricDefinition
from core.metrics.links import (
    broken_sequences,
    children_per_parent,
    join_correlation_difference_ratio,
    join_hellinger_mean,
    referential_integrity,
)
from core.metrics.result import MetricResult
from core.metrics.series import density_hellinger, pointwise_hellinger, series_dynamics, series_timing

SIGNAL_METRICS = (hellinger_mean, correlation_difference_ratio, multivariate_hellinger, propensity_mse, broken_relations)
PRIVACY_METRICS = (  # by the criterion they answer (SPEC 6.2), in its order
    hidden_rate, local_cloaking, row_direct_match_protection, closest_rate, identifier_protection,
    replicated_uniques, linkability_risk, correlation_protection_rate, distance_to_closest, closest_distances_ratio,
    dcr_share, inference_risk, disclosive_correct_original, column_direct_match_protection,
)
# computed last by a fix search, which stops at the first metric that misses its target (each setting that fails
# skips the rest): the two that count, for each original, the avatars closer than its own, the costliest (issue 51:
# 0.7 s of a setting's 1.7 s at 50 000 avatars)
COUNTING_CLOSER = (hidden_rate, local_cloaking)
# a link's, keyed by name: the join's two are the table metrics' on the join
LINK_METRICS = {"referential_integrity": referential_integrity, "children_per_parent": children_per_parent,
                "join_hellinger_mean": join_hellinger_mean,
                "join_correlation_difference_ratio": join_correlation_difference_ratio,
                "broken_sequences": broken_sequences}
SERIES_METRICS = (pointwise_hellinger, density_hellinger, series_timing, series_dynamics)
SIGNAL_NAMES = tuple(module.DEFINITION.name for module in SIGNAL_METRICS)
DEFINITIONS: dict[str, MetricDefinition] = {module.DEFINITION.name: module.DEFINITION
                                            for module in (*SIGNAL_METRICS, *PRIVACY_METRICS)}
TARGETS = {module.DEFINITION.name: module.DEFINITION.target for module in PRIVACY_METRICS}


def signal_metrics(context: SignalContext, timings: dict[str, float] | None = None,
                   names: Collection[str] | None = None) -> dict[str, MetricResult]:
    """Every signal metric of SPEC section 5 (or those ``names``), keyed by its JSON name (seconds per metric into
    ``timings``)."""
    return _computed([module for module in SIGNAL_METRICS if names is None or module.DEFINITION.name in names],
                     context, timings)


def privacy_metrics(context: PrivacyContext, timings: dict[str, float] | None = None,
                    names: Collection[str] | None = None, until_failing: bool = False) -> dict[str, MetricResult]:
    """Every privacy metric of SPEC section 6 (or those ``names``), keyed by its JSON name in the registry's order
    (seconds per metric into ``timings``). ``until_failing``: computed up to the first that misses its target,
    :data:`COUNTING_CLOSER` last, the others left out."""
    modules = [module for module in PRIVACY_METRICS if names is None or module.DEFINITION.name in names]
    order = sorted(modules, key=lambda module: module in COUNTING_CLOSER) if until_failing else modules
    results = _computed(order, context, timings, (lambda result: result.passed is False) if until_failing else None)
    return {module.DEFINITION.name: results[module.DEFINITION.name] for module in modules
            if module.DEFINITION.name in results}


def privacy_names() -> list[str]:
    """Every privacy metric's JSON name, in the registry's order (read when asked: a metric added is listed)."""
    return [module.DEFINITION.name for module in PRIVACY_METRICS]


def link_metrics(context: LinkContext, timings: dict[str, float] | None = None) -> dict[str, MetricResult]:
    """Every metric of a link between two tables (SPEC 12), keyed by its JSON name."""
    return _computed(LINK_METRICS, context, timings)


NO_TRAJECTORY = N_("Not applicable: a real half or the avatars hold no measure of this series, so there are no "
                   "trajectories to compare.")


def series_metrics(context: SeriesContext, timings: dict[str, float] | None = None) -> dict[str, MetricResult]:
    """Every metric of a time series (SPEC 13), keyed by its JSON name; none applies when a side holds no measure (a
    series 3 persons of 100 hold, all 3 in the holdout: resampling no curve was a traceback)."""
    if any(not len(side.timing.persons) for side in (context.originals, context.reference, context.avatars)):
        return {module.DEFINITION.name: module.DEFINITION.result(None, not_applicable=NO_TRAJECTORY)
                for module in SERIES_METRICS}
    return _computed(SERIES_METRICS, context, timings)


def _computed(modules: Iterable[ModuleType] | Mapping[str, ModuleType],
              context: SignalContext | PrivacyContext | LinkContext | SeriesContext,
              timings: dict[str, float] | None,
              stop: Callable[[MetricResult], bool] | None = None) -> dict[str, MetricResult]:
    """Each module's result in turn, up to the first that ``stop`` accepts."""
    named = modules if isinstance(modules, Mapping) else {module.DEFINITION.name: module for module in modules}
    timings = {} if timings is None else timings
    results = {}
    for name, module in named.items():
        with timed(timings, name):
            results[name] = module.compute(context)
        if stop is not None and stop(results[name]):
            break
    return results
