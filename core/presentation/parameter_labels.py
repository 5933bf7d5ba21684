"""What each choice of a run's parameters (:mod:`core.engine.parameters`) means, in words: the Generate page's
options and the report's parameters read them; the command line and the JSON keep the names."""

from __future__ import annotations

from core.dataset import LinkMethod
from core.engine.parameters import (
    ALIGNMENTS,
    EXCLUSION_STRATEGIES,
    IMPUTATION_METHODS,
    MECHANISMS,
    PROJECTION_TYPES,
    UNALIGNMENTS,
)
from core.i18n import N_

MECHANISM_LABELS = {  # shown through _()
    "gaussian": N_("one multivariate normal distribution (best for one-peaked data)"),
    "gmm": N_("a mixture of normal distributions (for data with several groups)"),
    "histogram": N_("independent histograms per axis (simple, loses relationships)"),
}
IMPUTATION_LABELS = {  # shown through _()
    "fast_knn": N_("from similar rows, found on a sample (fast; default)"),
    "knn": N_("from similar rows (k nearest neighbours)"),
    "mode": N_("the most common value"),
    "median": N_("the median"),
    "mean": N_("the mean"),
}
EXCLUSION_LABELS = {  # shown through _()
    "coordinate_similarity": N_("from the most similar real row"),
    "row_order": N_("from each avatar's own original (sensitive)"),
}
LINK_METHOD_LABELS = {  # shown through _(); a time series' link is set by its time column, not chosen
    LinkMethod.LINEAR_SUM_ASSIGNMENT: N_("the assignment of least total distance (default)"),
    LinkMethod.MINIMUM_DISTANCE: N_("each child to its nearest parent with room left (faster)"),
    LinkMethod.ORIGINAL_ORDER: N_("the real family structure (sensitive; Avatar on both tables)"),
}
PROJECTION_LABELS = {  # a time series' (SPEC 13), shown through _()
    "fpca": N_("its main shapes (functional principal components; default)"),
    "flatten": N_("its values at each point themselves (flatten)"),
}
ALIGNMENT_LABELS = {  # shown through _()
    "specified": N_("the number of points chosen (default)"),
    "max": N_("as many points as the longest series has measures"),
    "min": N_("as many points as the shortest series has measures"),
    "mean": N_("as many points as the series have measures on average"),
}
UNALIGNMENT_LABELS = {  # shown through _()
    "uniform": N_("its own number of measures, evenly spaced over its span (default)"),
    "skip": N_("the points of the grid, evenly spaced over its span"),
}
assert tuple(MECHANISM_LABELS) == MECHANISMS and tuple(IMPUTATION_LABELS) == IMPUTATION_METHODS \
    and tuple(EXCLUSION_LABELS) == EXCLUSION_STRATEGIES and tuple(PROJECTION_LABELS) == PROJECTION_TYPES \
    and tuple(ALIGNMENT_LABELS) == ALIGNMENTS and tuple(UNALIGNMENT_LABELS) == UNALIGNMENTS, \
    "a parameter's choice without its words"
