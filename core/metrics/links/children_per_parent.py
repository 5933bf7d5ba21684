"""Children per parent (SPEC 12): how alike the numbers of children per parent are in the avatars and the
originals, zeros included. The value is the Hellinger score ``100 (1 - H)`` of the two distributions of the number
(each number its own bin); the breakdown adds SDMetrics' CardinalityShapeSimilarity, ``1 - KS`` (the largest gap
between the two cumulative distributions), and both distributions."""

from __future__ import annotations

import numpy as np
import pandas as pd

from core.dataset import Link
from core.dataset.keys import key_values
from core.i18n import N_
from core.metrics.binning import hellinger_distance
from core.metrics.context import LinkContext
from core.metrics.definition import SIGNAL, MetricDefinition
from core.metrics.result import MetricResult

DEFINITION = MetricDefinition(
    name="children_per_parent", label=N_("Children per parent"), unit="/ 100", goal="maximize", bounds=(0.0, 100.0),
    interpretation=N_("The closer to 100, the more the avatars' parents have as many children as the originals' "
                      "(how many patients have no stay, one, two...)."),
    computation=N_("The numbers of children of every parent, zeros included, in the originals and in the avatars; "
                   "score = 100 x (1 - the Hellinger distance between their two distributions), each number its own "
                   "bin."),
    criterion=SIGNAL,
    bands=((95.0, "good", N_("as many children per parent")), (80.0, "fair", N_("some drift in the family sizes")),
           (-np.inf, "poor", N_("family sizes changed"))),
)
NO_PARENT = N_("Not applicable: the parent table has no row.")


def children_counts(parents: pd.DataFrame, children: pd.DataFrame, link: Link) -> np.ndarray:
    """The number of children of each row of ``parents`` (0 included)."""
    counts = key_values(children[link.foreign_key].dropna()).value_counts()
    return counts.reindex(key_values(parents[link.key]), fill_value=0).to_numpy(dtype=np.int64)


def children_per_parent(real_parents: pd.DataFrame, real_children: pd.DataFrame, parents: pd.DataFrame, children: pd.DataFrame,
            link: Link) -> MetricResult:
    """The Hellinger score of the avatars' (``parents``, ``children``) numbers of children per parent against the
    originals' (``real_parents``, ``real_children``), with 1 - KS beside it."""
    real, made = children_counts(real_parents, real_children, link), children_counts(parents, children, link)
    if not len(real) or not len(made):
        return DEFINITION.result(None, not_applicable=NO_PARENT)
    largest = int(max(real.max(), made.max()))
    real_share, made_share = (np.bincount(counts, minlength=largest + 1) / len(counts) for counts in (real, made))
    shape_similarity = 1.0 - float(np.abs(np.cumsum(real_share) - np.cumsum(made_share)).max())
    return DEFINITION.result(100.0 * (1.0 - hellinger_distance(real_share, made_share)), breakdown={
        "cardinality_shape_similarity": shape_similarity,
        "real_share": real_share.tolist(), "avatar_share": made_share.tolist()})


def compute(context: LinkContext) -> MetricResult:
    return children_per_parent(*context.real, *context.avatars, context.link)
