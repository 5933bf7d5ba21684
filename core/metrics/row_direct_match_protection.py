"""Row direct match protection (SPEC sections 6 and 6.1): 100 x (1 - the share of originals whose exact row is
*rare*, shared by fewer than ``RARE_GROUP`` originals, and found identical in every column among the avatars), typed
values compared, missing equal to missing. A combination that 5 or more people share identifies nobody.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core.engine.value_grid import RARE_HOLDERS
from core.i18n import N_
from core.metrics.definition import SINGLING_OUT, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

DEFINITION = MetricDefinition(
    name="row_direct_match_protection", label=N_("Row direct match protection"), unit="%", goal="maximize",
    bounds=(0.0, 100.0), interpretation=N_("Share of real people whose rare row (shared by fewer than 5 people) does "
                                           "not appear, identical in every column, among the avatars."),
    criterion=SINGLING_OUT, target=90.0,
)
RARE_GROUP = RARE_HOLDERS  # the engine's: the grid never makes an avatar equal to such a row (value_grid)


def compute(context: PrivacyContext) -> MetricResult:
    """100 x (1 - share of originals with a rare row found among the avatars), by row hashes."""
    avatar_hashes = pd.util.hash_pandas_object(context.avatar_rows, index=False).to_numpy()
    found = np.isin(context.reference.row_hashes, avatar_hashes)
    exposed = found & (context.reference.row_group_sizes < RARE_GROUP)
    return DEFINITION.result(float(100 * (1 - exposed.mean())), breakdown={
        "rows_found": int(found.sum()), "rare_rows_found": int(exposed.sum())})
