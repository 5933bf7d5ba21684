"""Correlation protection rate (SPEC section 6.2, linkability; the commercial engine has it).

The attacker knows the *known variables* of a person. Among the originals unique on them, ``n2`` are matched by
exactly one avatar (categorical values equal, numeric values within 5 % of the column's mean absolute value, dates
within 5 % of their range, missing equal to missing); those the hidden rate ``HR`` does not hide are exposed:
``100 x (1 - round(n2 x (1 - HR / 100)) / N)``, ``N`` the originals. Matching is a two-nearest query per unique
original in a tree (Chebyshev distance on values scaled by their tolerance, so that "within tolerance" is "within 1"):
matched by exactly one when the nearest is within reach and the second is not; n log n, no n x n matrix. Without pairing (FastDP)
no hidden rate is known and none is credited (HR = 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.engine.neighbours import NeighbourTree
from core.i18n import N_
from core.metrics.attack import CHOOSE_KNOWN
from core.metrics.definition import LINKABILITY, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

DEFINITION = MetricDefinition(
    name="correlation_protection_rate", label=N_("Correlation protection rate"), unit="%", goal="maximize",
    bounds=(0.0, 100.0), interpretation=N_("Share of people who cannot be found by matching what an attacker knows "
                                           "of them (the known variables) to a single avatar."),
    criterion=LINKABILITY, target=95.0,
    computation=N_("Among the people unique on the known variables, those matched by exactly one avatar (same "
                   "categories, numbers within 5 % of the column's mean absolute value), less those the hidden rate "
                   "hides."),
)
TOLERANCE = 0.05
_APART = 10.0  # categorical codes (and the missing flag) spread so that two different ones are never within 1


def compute(context: PrivacyContext) -> MetricResult:
    """``100 x (1 - round(n2 x (1 - HR / 100)) / N)``."""
    known = list(context.knowledge.known)
    if not known:
        return DEFINITION.result(None, not_applicable=CHOOSE_KNOWN, awaits_choice=True)
    reference = context.reference
    originals, avatars = reference.rows[known], context.avatar_rows[known]
    unique = ~pd.util.hash_pandas_object(originals, index=False).duplicated(keep=False).to_numpy()
    original_points, avatar_points = _match_space(originals, avatars, reference.kinds)
    reach = 1.0 + 1e-9
    nearest, _ = NeighbourTree(avatar_points).query(original_points[unique], 2, p=np.inf,
                                                   distance_upper_bound=np.nextafter(reach, np.inf), rows=False)
    matched_once = int(np.sum((nearest[:, 0] <= reach) & ~(nearest[:, 1] <= reach)))  # one within reach, not two
    hidden = context.closer.hidden.mean() if context.paired else 0.0
    exposed = round(matched_once * (1 - hidden))
    return DEFINITION.result(float(100 * (1 - exposed / len(originals))), breakdown={
        "unique_on_known": int(unique.sum()), "matched_by_one_avatar": matched_once, "exposed": exposed,
        "hidden_rate_credited": bool(context.paired)})


def _match_space(originals: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Points where two rows match exactly when their Chebyshev distance is at most 1: numbers divided by their
    tolerance, categories (and a missing number) as codes ``_APART`` apart."""
    original_columns, avatar_columns = [], []
    for name in originals.columns:
        first, second = originals[name].to_numpy(), avatars[name].to_numpy()
        if kinds[name] is Kind.CATEGORICAL:
            codes, _ = pd.factorize(np.concatenate([first, second]))
            original_columns.append(codes[:len(first)] * _APART)
            avatar_columns.append(codes[len(first):] * _APART)
            continue
        missing_value = np.iinfo(np.int64).min if first.dtype.kind in "iu" else -np.inf  # see comparable()
        first_missing, second_missing = first == missing_value, second == missing_value
        present = first[~first_missing].astype(float)
        spread = (np.abs(present).mean() if kinds[name] is Kind.NUMERIC else np.ptp(present)) if present.size else 0
        tolerance = TOLERANCE * spread if present.size and spread > 0 else 1.0
        for values, missing, columns in ((first, first_missing, original_columns),
                                         (second, second_missing, avatar_columns)):
            columns.append(np.where(missing, 0.0, values.astype(float) / tolerance))
            columns.append(missing * _APART)
    return np.column_stack(original_columns).astype(float), np.column_stack(avatar_columns).astype(float)
