"""``DiSCO``, disclosive in synthetic, correct original (attribute disclosure; Raab, Nowok and Dibben, *Practical
privacy metrics for synthetic data*, 2024; the R package synthpop 1.9's ``disclosure()``, issue 50): per sensitive
variable, the share of originals whose key combination (the known variables) is among the avatars, where every
avatar of that combination holds one and the same value of the variable, and that value is theirs.

Beside it, as synthpop computes them: ``Dorig`` (originals whose key combination holds one value among the
originals), ``Dsyn`` (avatars whose key combination holds one value among the avatars), ``iS`` (originals whose key
combination is among the avatars), ``DiS`` (those where it holds one value among the avatars, right or wrong),
``DiSDiO`` (``DiSCO`` where the originals' combination holds one value too), and ``DiSCO`` with the real holdout in
place of the avatars: what other real people disclose. Values compared exactly (synthpop's default: no grouping), a
missing value its own level; shares of the originals (``Dsyn`` of the avatars), in %. The metric's value is the
largest ``DiSCO`` over the sensitive variables. Shown, never in the verdict (no target is published).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core.i18n import N_
from core.metrics.attack import CHOOSE_KNOWN
from core.metrics.context import comparable
from core.metrics.definition import INFERENCE, MetricDefinition
from core.metrics.replicated_uniques import key_codes, share
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

DEFINITION = MetricDefinition(
    name="disclosive_correct_original", label=N_("Disclosive and correct (DiSCO)"), unit="%", goal="minimize",
    bounds=(0.0, 100.0), criterion=INFERENCE,
    interpretation=N_("Share of real people whose combination of known variables, among the avatars, holds a single "
                      "value of a sensitive variable, and theirs (synthpop's DiSCO; the worst sensitive variable). "
                      "Beside it, the same with real people never used: what any sample of the population discloses."),
    computation=N_("Per sensitive variable, with the known variables as keys (exact values, a missing value its own "
                   "level): the originals whose key combination is held by avatars that all hold the original's own "
                   "value, over all originals."),
)


def attribute_measures(originals: np.ndarray, original_values: np.ndarray, synthetic: np.ndarray,
                       synthetic_values: np.ndarray) -> dict[str, float]:
    """``Dorig``, ``Dsyn``, ``iS``, ``DiS``, ``DiSCO`` and ``DiSDiO`` (%) from the key codes and the codes of one
    variable's values of the originals and of the synthetic rows (codes shared by both)."""
    groups = int(max(originals.max(initial=-1), synthetic.max(initial=-1))) + 1
    values_in_originals, _ = _values_per_key(originals, original_values, groups)
    values_in_synthetic, synthetic_value = _values_per_key(synthetic, synthetic_values, groups)
    in_synthetic = np.bincount(synthetic, minlength=groups)[originals] > 0
    single = values_in_synthetic[originals] == 1
    correct = in_synthetic & single & (synthetic_value[originals] == original_values)
    single_in_originals = values_in_originals[originals] == 1
    return {"Dorig": share(single_in_originals), "Dsyn": share(values_in_synthetic[synthetic] == 1),
            "iS": share(in_synthetic), "DiS": share(in_synthetic & single), "DiSCO": share(correct),
            "DiSDiO": share(correct & single_in_originals)}


def _values_per_key(keys: np.ndarray, values: np.ndarray, groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Per key code, how many distinct values its rows hold, and one of them (-1 for a key no row holds)."""
    width = int(values.max(initial=0)) + 1
    pairs = np.unique(keys.astype(np.int64) * width + values)  # each (key, value) held, once
    count = np.bincount(pairs // width, minlength=groups)
    some = np.full(groups, -1, dtype=np.int64)
    some[pairs // width] = pairs % width
    return count, some


def compute(context: PrivacyContext) -> MetricResult:
    """The largest ``DiSCO`` over the sensitive variables, every measure of each beside it."""
    knowledge = context.knowledge
    if missing := knowledge.missing_choice(sensitive=True):
        return DEFINITION.result(None, not_applicable=missing, awaits_choice=True)
    sides, kinds = context.sides, context.reference.kinds
    columns = list(dict.fromkeys([*knowledge.known, *knowledge.sensitive]))
    holdout = None if sides is None or sides.approximate or not len(sides.controls) else comparable(
        sides.controls[columns], kinds)
    frames = [context.reference.rows, context.avatar_rows, *([holdout] if holdout is not None else [])]
    per_variable: dict[str, dict[str, float]] = {}
    coded: dict[tuple[str, ...], list[np.ndarray]] = {}  # the key codes of each set of keys, once
    for name in knowledge.sensitive:
        keys = tuple(key for key in knowledge.known if key != name)  # a variable is never its own key (synthpop)
        if not keys:
            continue
        if keys not in coded:
            coded[keys] = key_codes(frames, keys)
        codes = coded[keys]
        values = np.split(pd.factorize(pd.concat([frame[name] for frame in frames], ignore_index=True))[0],
                          np.cumsum([len(frame) for frame in frames])[:-1])
        measures = attribute_measures(codes[0], values[0], codes[1], values[1])
        if holdout is not None:
            measures["holdout_DiSCO"] = attribute_measures(codes[0], values[0], codes[2], values[2])["DiSCO"]
        per_variable[name] = measures
    if not per_variable:
        return DEFINITION.result(None, not_applicable=CHOOSE_KNOWN, awaits_choice=True)
    worst = max(measures["DiSCO"] for measures in per_variable.values())
    return DEFINITION.result(worst, breakdown={"keys": list(knowledge.known), "per_variable": per_variable})
