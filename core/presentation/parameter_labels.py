"""What each choice of a run's parameters (:mod:`core.engine.parameters`) means, in words: the Generate page's
options and the report's parameters read them; the command line and the JSON keep the names."""

from __future__ import annotations

from core.dataset import LinkMethod
from core.engine.parameters import EXCLUSION_STRATEGIES, IMPUTATION_METHODS, MECHANISMS
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
LINK_METHOD_LABELS = {  # shown through _(); time series are not offered yet
    LinkMethod.LINEAR_SUM_ASSIGNMENT: N_("the assignment of least total distance (default)"),
    LinkMethod.MINIMUM_DISTANCE: N_("each child to its nearest parent with room left (faster)"),
    LinkMethod.ORIGINAL_ORDER: N_("the real family structure (sensitive; Avatar on both tables)"),
}
assert tuple(MECHANISM_LABELS) == MECHANISMS and tuple(IMPUTATION_LABELS) == IMPUTATION_METHODS \
    and tuple(EXCLUSION_LABELS) == EXCLUSION_STRATEGIES, "a parameter's choice without its words"
