"""Correlation Difference Ratio (seed 003, SPEC section 5): how close the avatars' correlations stay to the
originals', against the gap between two real halves."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.engine.encoding import numeric_values
from core.i18n import N_, _, number
from core.metrics.definition import SIGNAL, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import SignalContext

CORRELATION_TEXT = N_(
    "How closely the avatars keep the correlations between numeric variables, measured against the natural "
    "variability of the data. Close to 100: the avatars' correlations differ from the originals' no more than natural "
    "variability allows, that is, than two halves of the original data differ from each other, a gap the score lets "
    "grow with the table's size beyond 2,000 rows (kappa; the two plain gaps are shown beside it). Lower: the "
    "avatars' correlations drift further. Only numeric variables and linear relationships count."
)
CORRELATION_COMPUTATION = N_(
    "Mean gap between two correlation matrices: Delta = mean over pairs of 100 x |r1 - r2| / 2. Score = 100 x "
    "kappa x Delta(originals, holdout) / Delta(originals, avatars), at most 100; kappa = sqrt(N / 2000) above "
    "2000 rows, else 1."
)
KAPPA_ROWS = 2000
STRENGTH_TIE = 0.005  # a mean change of |correlation| smaller than this is "about as strong"
# Readings (no target). The ratio is 100 x kappa x natural gap / avatars' gap: 80 is a gap 1.25 kappa times the natural
# one, 50 twice that (on a table of 2 000 rows or fewer, kappa is 1): the bands' words name no multiple.
DEFINITION = MetricDefinition(
    name="correlation_difference_ratio", label=N_("Correlation Difference Ratio"), unit="/ 100", goal="maximize",
    bounds=(0.0, 100.0), interpretation=CORRELATION_TEXT, computation=CORRELATION_COMPUTATION, criterion=SIGNAL,
    bands=((80.0, "good", N_("close to natural variability")), (50.0, "fair", N_("beyond natural variability")),
           (-np.inf, "poor", N_("far beyond natural variability"))),
)


def compute(context: SignalContext) -> MetricResult:
    """The Correlation Difference Ratio of WO, HO and WA."""
    return correlation_difference_ratio(context.working, context.holdout, context.avatars, context.kinds)


def correlation_difference_ratio(
    working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind]
) -> MetricResult:
    """Correlation Difference Ratio (seed 003): ``min(100, 100 kappa Delta(WO, HO) / Delta(WO, WA))``.

    Pearson matrices over the numeric variables (pairwise-complete observations);
    a pair is dropped where any of the three matrices is undefined;
    ``Delta(A, B)`` is the mean over ``i != j`` of ``100 |A_ij - B_ij| / 2``;
    ``kappa = sqrt(N / 2000)`` when N, the rows of WO, exceeds 2000, else 1; the score
    is 100 when ``Delta(WO, WA) = 0``. Datetime variables are not counted as numeric.

    The breakdown also says which way the avatars move the correlations (the score,
    an absolute gap, cannot): ``strength_change``, the mean over the defined pairs of
    ``|WA_ij| - |WO_ij|`` (positive: stronger in the avatars), ``reference_strength_change``
    the same for HO, and ``largest_change``, the pair whose correlation moves most.
    """
    numeric = [name for name in working.columns if kinds[name] is Kind.NUMERIC]
    n_working = len(working)
    kappa = float(np.sqrt(n_working / KAPPA_ROWS)) if n_working > KAPPA_ROWS else 1.0
    matrices = {
        label: pd.DataFrame({name: numeric_values(frame[name]) for name in numeric}).corr().to_numpy()
        if numeric else np.empty((0, 0))
        for label, frame in (("original", working), ("holdout", holdout), ("avatars", avatars))
    }
    off_diagonal = ~np.eye(len(numeric), dtype=bool)
    defined = off_diagonal & np.all([np.isfinite(m) for m in matrices.values()], axis=0) if numeric else off_diagonal
    breakdown = {
        "variables": numeric, "kappa": kappa,
        **{f"{label}_correlations": matrix for label, matrix in matrices.items()},
    }
    if len(numeric) < 2 or not defined.any():
        reason = (
            N_("It needs at least two numeric variables.") if len(numeric) < 2
            else N_("No pair of numeric variables has a defined correlation in all three samples (constant columns).")
        )
        return DEFINITION.result(None, not_applicable=reason,
                                 breakdown={**breakdown, "reference_difference": None, "avatar_difference": None})
    original, holdout_matrix, avatar_matrix = matrices["original"], matrices["holdout"], matrices["avatars"]
    reference = float(np.mean(100 * np.abs(original - holdout_matrix)[defined] / 2))
    avatar = float(np.mean(100 * np.abs(original - avatar_matrix)[defined] / 2))
    value = 100.0 if avatar == 0 else float(min(100.0, 100.0 * kappa * reference / avatar))
    moved = np.where(defined, np.abs(avatar_matrix - original), -1.0)
    i, j = np.unravel_index(int(np.argmax(moved)), moved.shape)
    return DEFINITION.result(
        value, breakdown={
            **breakdown, "reference_difference": reference, "avatar_difference": avatar,
            "strength_change": float(np.mean((np.abs(avatar_matrix) - np.abs(original))[defined])),
            "reference_strength_change": float(np.mean((np.abs(holdout_matrix) - np.abs(original))[defined])),
            "largest_change": {"variables": [numeric[i], numeric[j]], "original": float(original[i, j]),
                               "avatars": float(avatar_matrix[i, j])},
        },
    )


def correlation_gaps(result: MetricResult) -> str | None:
    """The two plain gaps the ratio compares, in correlation units (``Delta / 50``: the mean of ``|r1 - r2|``), shown
    wherever the ratio is, so that its cap at 100 never hides a loss (issue 45: AvatarFastDP's histogram scored 100
    with a mean gap of 0.065 against 0.051 between two real halves); and, when the avatars' gap is the larger, that
    ``kappa`` counts gaps up to ``kappa`` times the halves' as natural on a large table (seed 003)."""
    reference, avatars = result.breakdown.get("reference_difference"), result.breakdown.get("avatar_difference")
    if reference is None or avatars is None:
        return None
    sentence = _("A correlation differs from the originals' by {avatars} on average in the avatars, by {reference} "
                 "between two halves of the real data.").format(avatars=number(avatars / 50, ".3f"),
                                                                  reference=number(reference / 50, ".3f"))
    kappa = result.breakdown["kappa"]
    if avatars > reference and kappa > 1:
        sentence += " " + _("The ratio counts a gap up to {kappa} times the halves' as natural on a table this large "
                            "(kappa, the square root of the rows over 2,000), so its score does not mean the avatars' "
                            "correlations are as close as two real halves'.").format(kappa=number(kappa, ".2f"))
    return sentence


def correlation_direction(result: MetricResult) -> str | None:
    """Whether the avatars weaken or strengthen the correlations, in two plain sentences (in the current language:
    it is written when shown)."""
    change = result.breakdown.get("strength_change")
    if change is None:
        return None
    reference, largest = result.breakdown["reference_strength_change"], result.breakdown["largest_change"]
    if abs(change) < STRENGTH_TIE:
        direction = _("The avatars keep the correlations about as strong as in the originals, against {reference} "
                      "between two halves of the real data.")
    elif change > 0:
        direction = _("The avatars strengthen the correlations: on average a correlation is {change} stronger (in "
                      "absolute value), against {reference} between two halves of the real data.")
    else:
        direction = _("The avatars weaken the correlations: on average a correlation is {change} weaker (in absolute "
                      "value), against {reference} between two halves of the real data.")
    first, second = largest["variables"]
    largest_change = _("Largest change: {first} and {second}, {original} in the originals, {avatars} in the avatars.")
    return " ".join((
        direction.format(change=number(abs(change), ".3f"), reference=number(reference, "+.3f")),
        largest_change.format(first=first, second=second, original=number(largest["original"], ".2f"),
                              avatars=number(largest["avatars"], ".2f")),
    ))
