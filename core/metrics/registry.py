"""Every metric, in the order the command line, the JSON, the pages and the report show them.

A metric is a module with a ``DEFINITION`` (:class:`~core.metrics.definition.MetricDefinition`) and a
``compute(context)`` (see :mod:`core.metrics.hidden_rate` for a small one). To add one: write its module and add
it to one of the tuples below. Everything that lists metrics (the
command line's table, the JSON, the pages, the report, the sweep's axes and targets) reads this registry.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from core.engine.timing import timed
from core.metrics import (
    closest_distances_ratio,
    column_direct_match_protection,
    correlation_difference_ratio,
    distance_to_closest,
    hellinger_mean,
    hidden_rate,
    local_cloaking,
    multivariate_hellinger,
    row_direct_match_protection,
)
from core.metrics.context import NOT_PAIRED, PrivacyContext, PrivacyReference, SignalContext
from core.metrics.definition import MetricDefinition
from core.metrics.result import MetricResult

SIGNAL_METRICS = (hellinger_mean, correlation_difference_ratio, multivariate_hellinger)
PRIVACY_METRICS = (
    hidden_rate, local_cloaking, distance_to_closest, closest_distances_ratio, row_direct_match_protection,
    column_direct_match_protection,
)
DEFINITIONS: dict[str, MetricDefinition] = {module.DEFINITION.name: module.DEFINITION
                                            for module in (*SIGNAL_METRICS, *PRIVACY_METRICS)}
TARGETS = {module.DEFINITION.name: module.DEFINITION.target for module in PRIVACY_METRICS}


def signal_metrics(context: SignalContext, timings: dict[str, float] | None = None) -> dict[str, MetricResult]:
    """Every signal metric of SPEC section 5, keyed by its JSON name (seconds per metric into ``timings``)."""
    timings = {} if timings is None else timings
    results = {}
    for module in SIGNAL_METRICS:
        with timed(timings, module.DEFINITION.name):
            results[module.DEFINITION.name] = module.compute(context)
    return results


def privacy_metrics(
    reference: PrivacyReference,
    avatar_coordinates: np.ndarray,
    avatars: pd.DataFrame,
    paired: bool,
    unpaired_reason: str = NOT_PAIRED,
) -> dict[str, MetricResult]:
    """Every privacy metric of SPEC section 6, keyed by its JSON name.

    ``avatar_coordinates`` are the rows of ``avatars`` in the latent space of ``reference``;
    with ``paired``, avatar ``i`` was made from original ``i``; without, the metrics that
    need pairing are not applicable, for ``unpaired_reason``.
    """
    context = PrivacyContext(reference, avatar_coordinates, avatars, paired, unpaired_reason)
    return {module.DEFINITION.name: module.compute(context) for module in PRIVACY_METRICS}
