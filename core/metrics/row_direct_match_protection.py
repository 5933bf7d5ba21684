"""Row direct match protection (SPEC section 6): the share of original rows not found, identical in every
column, among the avatars (typed values compared, missing equal to missing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core.metrics.definition import SINGLING_OUT, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

DEFINITION = MetricDefinition(
    name="row_direct_match_protection", label="Row direct match protection", unit="%", goal="maximize",
    bounds=(0.0, 100.0), interpretation="Share of real rows that do not appear, identical in every column, among the "
    "avatars.", criterion=SINGLING_OUT, target=90.0,
)


def compute(context: PrivacyContext) -> MetricResult:
    """100 x (1 - share of original rows found among the avatars), by row hashes."""
    avatar_hashes = pd.util.hash_pandas_object(context.avatar_rows, index=False).to_numpy()
    found = np.isin(context.reference.row_hashes, avatar_hashes)
    return DEFINITION.result(float(100 * (1 - found.mean())), breakdown={"rows_found": int(found.sum())})
