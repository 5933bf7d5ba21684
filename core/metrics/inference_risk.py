"""Inference risk (SPEC section 6.2), one per sensitive variable: can an attacker who knows a person's known
variables learn a sensitive one from the avatars?

The attacker guesses the sensitive value of a person as that of the nearest avatar on the known variables; with
several avatars tied at the least distance, the success counts by its expectation (the share of them whose value
is right). Success: the same category (missing equal to missing), or a number within 5 % of the variable's range.
``r_a`` over the persons the avatars were made from, ``r_c`` over real persons never used; risk =
``max(0, (r_a - r_c) / (1 - r_c))`` with its 95 % interval (:mod:`core.metrics.attack`), always (revised SPEC 6.2:
an attack weaker than guessing still leaks what members gain over controls; the seeds' AIDS table read 0 [0, 0]
for ``cens`` while members beat controls by 11.8 %). The baseline, guessing for everyone the avatars' most common
value (categorical) or median (numeric), is shown beside the risk, and is the reference when no real person was
kept apart. The metric's value is the largest risk over the sensitive variables, met or missed on it; uncertain
when the largest upper end of the intervals passes the target (SPEC 6.2, revised again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.engine.encoding import numeric_values
from core.i18n import N_
from core.metrics.attack import AttackRisk, KnownSpace, NearestAvatars
from core.metrics.definition import INFERENCE, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import AttackSides, PrivacyContext

DEFINITION = MetricDefinition(
    name="inference_risk", label=N_("Inference risk"), unit="%", goal="minimize", bounds=(0.0, 100.0),
    interpretation=N_("How much better than for people never used an attacker who knows a person's known variables "
                      "guesses a sensitive one from the nearest avatar (the worst sensitive variable)."),
    criterion=INFERENCE, target=10.0,
    computation=N_("Per sensitive variable, risk = (r_a - r_c) / (1 - r_c), r_a the right guesses for the people the "
                   "avatars come from, r_c for real people of the holdout (guessing the most common value, the "
                   "baseline, when there is none); the target is met or missed on the largest risk, uncertain when an "
                   "upper end of the 95 % intervals passes it."),
)
TOLERANCE = 0.05


def compute(context: PrivacyContext) -> MetricResult:
    """The largest risk over the sensitive variables, in %."""
    knowledge = context.knowledge
    if missing := knowledge.missing_choice(sensitive=True):
        return DEFINITION.result(None, not_applicable=missing, awaits_choice=True)
    if context.sides is None:
        return DEFINITION.result(None, not_applicable=N_("Not applicable: the avatars were not scored against originals."))
    sides, kinds = context.sides, context.reference.kinds
    space = KnownSpace(sides.members, context.avatars, knowledge.known, kinds)
    nearest = space.nearest(sides.members), None if sides.approximate else space.nearest(sides.controls)
    per_variable = [_variable_risk(name, kinds[name] is Kind.CATEGORICAL, sides, nearest, space.point_of_avatar,
                                   context.avatars[name]) for name in knowledge.sensitive]
    worst = max(per_variable, key=lambda entry: (entry["risk"], entry["high"]))
    widest = max(per_variable, key=lambda entry: (entry["high"], entry["risk"]))
    return DEFINITION.result(worst["risk"], judged=widest["high"], breakdown={
        "per_variable": per_variable, "worst": worst["variable"], "low": worst["low"], "high": worst["high"],
        "widest": widest["variable"], "against": worst["against"], "members_attacked": worst["members_attacked"]})


def _variable_risk(name: str, categorical: bool, sides: AttackSides,
                   nearest: tuple[NearestAvatars, NearestAvatars | None], point_of_avatar: np.ndarray,
                   avatar_values: pd.Series) -> dict:
    """One sensitive variable's risk; ``nearest``: the members' nearest avatars, and the controls' (None: no
    control)."""
    members = sides.members[name].reset_index(drop=True)
    members_nearest, controls_nearest = nearest
    guessed: GuessedCategories | GuessedNumbers
    if categorical:
        guessed = GuessedCategories(avatar_values, point_of_avatar)
        common = avatar_values.mode(dropna=False)
        baseline = float(np.mean(_same_category(members, common.iloc[0] if len(common) else np.nan)))
    else:
        member_values = _values(members)
        present = member_values[~np.isnan(member_values)]
        tolerance = TOLERANCE * (np.ptp(present) if present.size else 0.0)
        guessed = GuessedNumbers(_values(avatar_values), point_of_avatar, tolerance)
        median = np.nanmedian(_values(avatar_values)) if avatar_values.notna().any() else np.nan
        baseline = float(np.mean(guessed.close(member_values, np.full(len(member_values), median))))
    controls = None if controls_nearest is None else guessed.successes(
        sides.controls[name].reset_index(drop=True), controls_nearest)
    risk = AttackRisk.of(guessed.successes(members, members_nearest), controls, baseline)
    return {"variable": name, **risk.to_percent(), "beats_guessing": bool(risk.members > baseline),
            "baseline_guess": N_("the most common value") if categorical else N_("the median")}


def _same_category(truth: pd.Series, guess: object) -> np.ndarray:
    """Whether each value is ``guess`` (missing equal to missing)."""
    if pd.isna(guess):
        return truth.isna().to_numpy()
    return (truth.astype(object) == guess).fillna(False).to_numpy(dtype=bool)


class GuessedCategories:
    """The avatars' values of a categorical counted by avatar point and value (missing as a value of its own)."""

    def __init__(self, avatar_values: pd.Series, point_of_avatar: np.ndarray):
        self.categories = pd.Index(avatar_values.astype("category").cat.categories)
        self.stride = len(self.categories) + 2  # codes, then missing, then a value no avatar holds
        codes = self._codes(avatar_values)
        self.keys, self.counts = np.unique(point_of_avatar.astype(np.int64) * self.stride + codes, return_counts=True)

    def _codes(self, values: pd.Series) -> np.ndarray:
        """Codes into the avatars' categories; missing, and a value no avatar has, get codes of their own."""
        codes = self.categories.get_indexer(values.astype(object)).astype(np.int64)
        codes[codes < 0] = self.stride - 1  # no avatar holds it: matches nothing
        codes[values.isna().to_numpy()] = self.stride - 2
        return codes

    def successes(self, truth: pd.Series, nearest: NearestAvatars) -> np.ndarray:
        """Per person, the share of its tied nearest avatars that hold its value."""
        keys = nearest.point.astype(np.int64) * self.stride + self._codes(truth)[nearest.person]
        found = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        right = np.where(self.keys[found] == keys, self.counts[found], 0)
        return np.bincount(nearest.person, weights=right, minlength=len(truth)) / nearest.totals


class GuessedNumbers:
    """The avatars' values of a number sorted within each avatar point, to count those within ``tolerance`` of a
    person's value (missing equal to missing)."""

    def __init__(self, avatar_values: np.ndarray, point_of_avatar: np.ndarray, tolerance: float):
        self.tolerance = tolerance
        missing = np.isnan(avatar_values)
        self.missing_counts = np.bincount(point_of_avatar[missing], minlength=int(point_of_avatar.max(initial=-1)) + 1)
        present = ~missing
        order = np.lexsort((avatar_values[present], point_of_avatar[present]))
        self.points, self.values = point_of_avatar[present][order], avatar_values[present][order]

    def close(self, truth: np.ndarray, guesses: np.ndarray) -> np.ndarray:
        """Whether each guess is within the tolerance of the truth (missing equal to missing)."""
        with np.errstate(invalid="ignore"):
            return (np.isnan(truth) & np.isnan(guesses)) | (np.abs(truth - guesses) <= self.tolerance)

    def successes(self, truth: pd.Series, nearest: NearestAvatars) -> np.ndarray:
        """Per person, the share of its tied nearest avatars whose value is within the tolerance of its own."""
        values = _values(truth)[nearest.person]
        within = _counts_between(self.points, self.values, nearest.point, values - self.tolerance,
                                 values + self.tolerance)
        missing = np.isnan(values)
        right = np.where(missing, self.missing_counts[nearest.point], within)
        return np.bincount(nearest.person, weights=right, minlength=len(truth)) / nearest.totals


def _counts_between(points: np.ndarray, values: np.ndarray, asked_points: np.ndarray, lows: np.ndarray,
                    highs: np.ndarray) -> np.ndarray:
    """For each asked (point, low, high), how many of ``values`` (sorted by point, then value) on that point lie in
    ``[low, high]``: one search in the pairs (point, value) ordered as tuples."""
    order_keys = np.rec.fromarrays([points, values])
    lower = np.searchsorted(order_keys, np.rec.fromarrays([asked_points, lows]), side="left")
    upper = np.searchsorted(order_keys, np.rec.fromarrays([asked_points, highs]), side="right")
    return np.where(np.isnan(lows), 0, upper - lower)


def _values(column: pd.Series) -> np.ndarray:
    return numeric_values(column.reset_index(drop=True))
