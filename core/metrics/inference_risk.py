"""Inference risk (SPEC section 6.2), one per sensitive variable: can an attacker who knows a person's known
variables learn a sensitive one from the avatars?

The attacker guesses the sensitive value of a person as that of the nearest avatar on the known variables (ties
broken at random). Success: the same category (missing equal to missing), or a number within 5 % of the variable's
range. ``r_a`` over the persons the avatars were made from, ``r_c`` over real persons never used; risk =
``max(0, (r_a - r_c) / (1 - r_c))`` with its 95 % interval (:mod:`core.metrics.attack`). The attack counts only
when it beats the baseline, guessing for everyone the avatars' most common value (categorical) or median
(numeric): otherwise the risk is 0, "no better than guessing". The metric's value is the largest risk over the
sensitive variables; the target is judged on the largest upper end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core.engine.encoding import numeric_values
from core.engine.schema import Kind
from core.i18n import N_
from core.metrics.attack import CHOOSE_KNOWN, AttackRisk, KnownSpace
from core.metrics.definition import INFERENCE, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

DEFINITION = MetricDefinition(
    name="inference_risk", label=N_("Inference risk"), unit="%", goal="minimize", bounds=(0.0, 100.0),
    interpretation=N_("How much better than for people never used an attacker who knows a person's known variables "
                      "guesses a sensitive one from the nearest avatar (the worst sensitive variable)."),
    criterion=INFERENCE, target=10.0,
    computation=N_("Per sensitive variable, risk = (r_a - r_c) / (1 - r_c), counted only when the attack beats "
                   "guessing the most common value; the target is judged on the upper end of the 95 % interval."),
)
TOLERANCE = 0.05


def compute(context: PrivacyContext) -> MetricResult:
    """The largest risk over the sensitive variables, in %."""
    knowledge = context.knowledge
    if not knowledge.known:
        return DEFINITION.result(None, not_applicable=CHOOSE_KNOWN)
    if not knowledge.sensitive:
        return DEFINITION.result(None, not_applicable=N_(
            "Choose the sensitive variables an attacker would want to learn (a diagnosis, an income): this metric "
            "measures how well the avatars reveal them."))
    if context.sides is None or len(context.sides.controls) == 0:
        return DEFINITION.result(None, not_applicable=N_(
            "Not applicable: it needs real people kept apart as a control."))
    sides, kinds = context.sides, context.reference.kinds
    space = KnownSpace(sides.members, context.avatars, knowledge.known, kinds)
    wanted = context.avatars[list(knowledge.sensitive)]
    guesses = {who: wanted.iloc[space.nearest_avatar(frame)].reset_index(drop=True)
               for who, frame in (("members", sides.members), ("controls", sides.controls))}
    per_variable = [_variable_risk(name, kinds[name] is Kind.CATEGORICAL, sides.members, sides.controls, guesses,
                                   context.avatars[name]) for name in knowledge.sensitive]
    worst = max(per_variable, key=lambda entry: (entry["high"], entry["risk"]))
    return DEFINITION.result(worst["risk"], judged=worst["high"], breakdown={
        "per_variable": per_variable, "worst": worst["variable"], "low": worst["low"], "high": worst["high"],
        "approximate_control": sides.approximate})


def _variable_risk(name: str, categorical: bool, members: pd.DataFrame, controls: pd.DataFrame,
                   guesses: dict[str, pd.DataFrame], avatar_values: pd.Series) -> dict:
    if categorical:
        tolerance = 0.0
    else:
        member_values = _values(members[name])
        present = member_values[~np.isnan(member_values)]
        tolerance = TOLERANCE * (np.ptp(present) if present.size else 0.0)

    def successes(truth: pd.Series, guessed: pd.Series) -> np.ndarray:
        if categorical:  # codes over the categories of both: missing (-1) equal to missing
            categories = pd.Index(truth.astype("category").cat.categories).union(
                pd.Index(guessed.astype("category").cat.categories))
            return (pd.Categorical(truth, categories=categories).codes
                    == pd.Categorical(guessed, categories=categories).codes)
        true_values, guessed_values = _values(truth), _values(guessed)
        both_missing = np.isnan(true_values) & np.isnan(guessed_values)
        with np.errstate(invalid="ignore"):
            return both_missing | (np.abs(true_values - guessed_values) <= tolerance)

    risk = AttackRisk.of(successes(members[name], guesses["members"][name]),
                         successes(controls[name], guesses["controls"][name]))
    if categorical:
        common = avatar_values.mode(dropna=False)
        baseline_guess = pd.Series([common.iloc[0] if len(common) else np.nan] * len(members), dtype=object)
    else:
        baseline_guess = pd.Series(np.full(len(members), np.nanmedian(_values(avatar_values))))
    baseline = float(np.mean(successes(members[name], baseline_guess)))
    beats = risk.members > baseline
    shown = risk.to_percent() if beats else {**risk.to_percent(), "risk": 0.0, "low": 0.0, "high": 0.0}
    return {"variable": name, **shown, "baseline": 100 * baseline, "beats_guessing": bool(beats),
            "baseline_guess": N_("the most common value") if categorical else N_("the median")}


def _values(column: pd.Series) -> np.ndarray:
    return numeric_values(column.reset_index(drop=True))
