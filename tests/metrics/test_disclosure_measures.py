"""synthpop's disclosure measures (issue 50; Raab, Nowok and Dibben 2024; synthpop 1.9's ``disclosure()``): the
identity measures UiO, UiS, UiOiS and repU, and the attribute measures Dorig, Dsyn, iS, DiS, DiSCO and DiSDiO, by
hand on small tables, then through the metrics with the holdout's reference beside them."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.metrics import disclosive_correct_original, replicated_uniques
from core.metrics.attack import Knowledge
from core.metrics.context import AttackSides, PrivacyContext, PrivacyReference
from core.metrics.disclosive_correct_original import attribute_measures
from core.metrics.replicated_uniques import identity_measures, key_codes
from tests.support import typed

ORIGINALS = pd.DataFrame({"sex": ["F", "F", "M", "M", "F"], "age": [30, 30, 40, 50, 60],
                          "diagnosis": ["A", "B", "A", "B", "A"]})
SYNTHETIC = pd.DataFrame({"sex": ["F", "M", "M", "M", "F", "F"], "age": [30, 40, 40, 50, 60, 70],
                          "diagnosis": ["A", "A", "A", "B", "C", "A"]})


def codes_of(originals, synthetic, keys, target=None):
    key_o, key_s = key_codes([originals, synthetic], keys)
    if target is None:
        return key_o, key_s
    values = pd.factorize(pd.concat([originals[target], synthetic[target]], ignore_index=True))[0]
    return key_o, values[:len(originals)], key_s, values[len(originals):]


def test_identity_measures_by_hand():
    # keys (sex, age). Originals: F30 twice, M40, M50, F60 once each; synthetic: F30, M50, F60, F70 once, M40 twice.
    # UiO: M40, M50, F60 are unique among the originals: 3 / 5. UiS: F30, M50, F60, F70: 4 / 6.
    # UiOiS: the three unique originals' combinations are all among the synthetic rows: 3 / 5.
    # repU: of those, M50 and F60 are unique among the synthetic rows too (M40 is held twice): 2 / 5.
    measures = identity_measures(*codes_of(ORIGINALS, SYNTHETIC, ["sex", "age"]))
    assert measures == pytest.approx({"UiO": 60.0, "UiS": 400 / 6, "UiOiS": 60.0, "repU": 40.0})


def test_attribute_measures_by_hand():
    # synthetic rows per combination: F30 {A}, M40 {A, A}, M50 {B}, F60 {C}, F70 {A}: each holds one value (Dsyn 100).
    # iS: every original's combination is among them (100); DiS: and holds one value there (100).
    # DiSCO: F30/A right, F30/B wrong, M40/A right, M50/B right, F60/A wrong (C): 3 / 5.
    # Dorig: the originals' F30 holds A and B; M40, M50, F60 one value each: 3 / 5. DiSDiO: DiSCO and Dorig: M40, M50.
    measures = attribute_measures(*codes_of(ORIGINALS, SYNTHETIC, ["sex", "age"], "diagnosis"))
    assert measures == pytest.approx({"Dorig": 60.0, "Dsyn": 100.0, "iS": 100.0, "DiS": 100.0, "DiSCO": 60.0,
                                      "DiSDiO": 40.0})


def test_a_missing_value_is_its_own_level_and_a_combination_absent_counts_nowhere():
    # keys (town). Originals: x/1, x/1, y/2, missing/3, missing/3; synthetic: x/1, x/2, missing/3, z/4.
    # identity: y is the only unique original (UiO 1/5); it is absent from the synthetic rows: UiOiS and repU 0.
    # attribute: x holds 1 and 2 among the synthetic rows (not disclosive); missing holds 3 (disclosive, right for
    # both missing originals); y absent. iS: x, x, missing, missing (4/5); DiS = DiSCO = 2/5; Dorig: every
    # combination holds one value among the originals (5/5); DiSDiO 2/5; Dsyn: missing and z (2/4).
    originals = pd.DataFrame({"town": ["x", "x", "y", None, None], "value": [1, 1, 2, 3, 3]})
    synthetic = pd.DataFrame({"town": ["x", "x", None, "z"], "value": [1, 2, 3, 4]})
    assert identity_measures(*codes_of(originals, synthetic, ["town"])) == pytest.approx(
        {"UiO": 20.0, "UiS": 50.0, "UiOiS": 0.0, "repU": 0.0})
    assert attribute_measures(*codes_of(originals, synthetic, ["town"], "value")) == pytest.approx(
        {"Dorig": 100.0, "Dsyn": 50.0, "iS": 80.0, "DiS": 40.0, "DiSCO": 40.0, "DiSDiO": 40.0})


def context_of(originals, avatars, holdout, known, sensitive):
    """The metrics' context of three small typed tables (coordinates unused by these two metrics)."""
    frames, kinds = typed(pd.concat([originals, avatars, holdout], ignore_index=True))
    whole = frames[0]
    parts = np.split(np.arange(len(whole)), np.cumsum([len(originals), len(avatars)]))
    members, synthetic, controls = (whole.iloc[rows].reset_index(drop=True) for rows in parts)
    reference = PrivacyReference.of(np.zeros((len(members), 1)), members, kinds)
    sides = AttackSides(members, controls, np.zeros((len(controls), 1)), None,
                        Knowledge(known=tuple(known), sensitive=tuple(sensitive)))
    return PrivacyContext(reference, np.zeros((len(synthetic), 1)), synthetic, paired=False, sides=sides)


def test_the_metrics_give_synthpops_figures_and_the_holdouts_beside_them():
    holdout = pd.DataFrame({"sex": ["M", "F", "F"], "age": [50, 60, 30], "diagnosis": ["B", "A", "B"]})
    context = context_of(ORIGINALS, SYNTHETIC, holdout, ["sex", "age"], ["diagnosis"])
    identity = replicated_uniques.compute(context)
    assert identity.value == pytest.approx(40.0) and identity.passed is None  # read, never in the verdict
    # the holdout as the synthetic rows: M50 and F60 unique among the originals and held once by the holdout: 2 / 5
    assert identity.breakdown["holdout_repU"] == pytest.approx(40.0) and identity.breakdown["UiO"] == 60.0
    attribute = disclosive_correct_original.compute(context)
    assert attribute.value == pytest.approx(60.0)
    # the holdout holds M50/B, F60/A, F30/B: right for M50 and F60, and for F30/B (not F30/A): 3 / 5
    assert attribute.breakdown["per_variable"]["diagnosis"]["holdout_DiSCO"] == pytest.approx(60.0)


def test_without_known_or_sensitive_variables_they_await_the_choice():
    context = context_of(ORIGINALS, SYNTHETIC, ORIGINALS.iloc[:2], [], [])
    assert replicated_uniques.compute(context).awaits_choice
    assert disclosive_correct_original.compute(context_of(ORIGINALS, SYNTHETIC, ORIGINALS.iloc[:2], ["sex"], [])
                                               ).awaits_choice
    own_key = context_of(ORIGINALS, SYNTHETIC, ORIGINALS.iloc[:2], ["sex", "diagnosis"], ["diagnosis"])
    # a sensitive variable is never its own key (synthpop): diagnosis from sex alone. F holds A, A, C among the
    # synthetic rows and M holds A, A, B: neither is disclosive
    assert disclosive_correct_original.compute(own_key).value == 0.0


def brute_force(originals, synthetic):
    """synthpop's definitions, one original at a time (keys: the tuples ``k``; values ``v``)."""
    measures = dict.fromkeys(["UiO", "UiS", "UiOiS", "repU", "Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO"], 0.0)
    for key, value in originals:
        in_originals = [v for k, v in originals if k == key]
        in_synthetic = [v for k, v in synthetic if k == key]
        unique = len(in_originals) == 1
        measures["UiO"] += unique
        measures["UiOiS"] += unique and len(in_synthetic) > 0
        measures["repU"] += unique and len(in_synthetic) == 1
        measures["Dorig"] += len(set(in_originals)) == 1
        measures["iS"] += len(in_synthetic) > 0
        measures["DiS"] += len(set(in_synthetic)) == 1
        measures["DiSCO"] += set(in_synthetic) == {value}
        measures["DiSDiO"] += set(in_synthetic) == {value} and len(set(in_originals)) == 1
    for key, _ in synthetic:
        in_synthetic = [v for k, v in synthetic if k == key]
        measures["UiS"] += len(in_synthetic) == 1
        measures["Dsyn"] += len(set(in_synthetic)) == 1
    return {name: 100 * count / (len(synthetic) if name in ("UiS", "Dsyn") else len(originals))
            for name, count in measures.items()}


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 40), m=st.integers(1, 40), levels=st.integers(1, 4))
def test_the_vectorised_measures_equal_synthpops_definitions_one_original_at_a_time(seed, n, m, levels):
    rng = np.random.default_rng(seed)

    def table(size):
        return pd.DataFrame({"a": rng.integers(0, levels, size), "b": rng.choice(["u", "v", None], size),
                             "t": rng.integers(0, levels, size)})
    originals, synthetic = table(n), table(m)
    codes = codes_of(originals, synthetic, ["a", "b"], "t")
    measures = {**identity_measures(codes[0], codes[2]), **attribute_measures(*codes)}
    pairs = [list(zip(codes[2 * side], codes[2 * side + 1], strict=True)) for side in (0, 1)]
    assert measures == pytest.approx(brute_force(*pairs))
