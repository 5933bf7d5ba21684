"""Survival, real against avatars (SPEC section 9), with lifelines: its own example's documented values, identical
avatars, and avatars whose times were shuffled."""

import numpy as np
import pandas as pd
import pytest
from lifelines.datasets import load_rossi

from core.dataset import Kind
from core.engine.schema import apply_kinds
from core.errors import InputError
from core.metrics.analysis.survival import event_of, survival

ROSSI_KINDS = {"week": Kind.NUMERIC, "arrest": Kind.CATEGORICAL, "fin": Kind.CATEGORICAL, "age": Kind.NUMERIC,
               "race": Kind.CATEGORICAL, "wexp": Kind.CATEGORICAL, "mar": Kind.CATEGORICAL,
               "paro": Kind.CATEGORICAL, "prio": Kind.NUMERIC}


def rossi():
    return apply_kinds(load_rossi(), ROSSI_KINDS)


def test_the_hazard_ratios_of_lifelines_own_example():
    """lifelines' documentation (Survival regression, the Rossi recidivism data, every covariate): fin 0.68
    [0.47, 1.00] p 0.05, age 0.94 [0.90, 0.99], prio 1.10 [1.04, 1.16]. No one is censored before week 52, so the
    Kaplan-Meier curve ends at 1 - 114 / 432 = 0.736111; half are never re-arrested: no median."""
    frame = rossi()
    result = survival(frame, frame, frame, ROSSI_KINDS, "week", "arrest", covariate="fin",
                      adjust=["age", "race", "wexp", "mar", "paro", "prio"])
    ratios = {ratio.term: ratio.real for ratio in result.hazard_ratios}
    assert [round(value, 2) for value in (ratios["fin = 1"].value, ratios["fin = 1"].low, ratios["fin = 1"].high,
                                          ratios["fin = 1"].p_value)] == [0.68, 0.47, 1.00, 0.05]
    assert [round(value, 2) for value in (ratios["age"].value, ratios["age"].low, ratios["age"].high)] == \
        [0.94, 0.90, 0.99]
    assert [round(value, 2) for value in (ratios["prio"].value, ratios["prio"].low, ratios["prio"].high)] == \
        [1.10, 1.04, 1.16]
    (curve,) = result.curves["real"]
    assert (curve.rows, curve.events, curve.survival[-1], curve.median) == (432, 114, pytest.approx(318 / 432), None)
    assert result.event_value == "1" and result.times[-1] == 52.0


def test_avatars_that_are_the_originals_give_the_same_curves_and_hazard_ratio():
    frame = rossi()
    working, holdout = frame.iloc[::2].reset_index(drop=True), frame.iloc[1::2].reset_index(drop=True)
    result = survival(working, holdout, working.copy(), ROSSI_KINDS, "week", "arrest", group="fin")
    (ratio,) = result.hazard_ratios
    assert ratio.term == "fin = 1" and ratio.avatars == ratio.real and ratio.overlap == pytest.approx(1.0)
    assert result.curves["avatars"] == result.curves["real"]
    assert result.logrank_p["avatars"] == result.logrank_p["real"]
    assert ratio.holdout != ratio.real and ratio.reference_overlap < 1


@pytest.mark.parametrize("seed", range(3))
def test_avatars_whose_times_are_shuffled_lose_the_hazard_ratio(seed):
    """Prior convictions raise the hazard (1.11 per conviction, p < 0.001); with times and events dealt at random
    the avatars' ratio is 1 within its interval. Seeds 0-7 measured: overlap -0.18 to 0.48 (1 when identical),
    the avatars' p-value 0.15 to 1."""
    rng = np.random.default_rng(seed)
    frame = rossi()
    avatars = frame.assign(week=frame["week"].to_numpy()[rng.permutation(len(frame))],
                           arrest=frame["arrest"].to_numpy()[rng.permutation(len(frame))])
    result = survival(frame, frame, avatars, ROSSI_KINDS, "week", "arrest", covariate="prio")
    (ratio,) = result.hazard_ratios
    assert ratio.real.significant and ratio.real.low > 1
    assert ratio.overlap < 0.6 and not ratio.avatars.significant and ratio.avatars.low < 1 < ratio.avatars.high


def test_the_event_group_and_time_are_checked():
    frame = rossi()
    with pytest.raises(InputError, match="The event column 'prio' must have two values"):
        survival(frame, frame, frame, ROSSI_KINDS, "week", "prio")
    with pytest.raises(InputError, match="The group column 'age' has [0-9]+ values; curves are drawn for at most 10"):
        survival(frame, frame, frame, ROSSI_KINDS, "week", "arrest", group="age")
    negative = frame.assign(week=frame["week"] - 10)
    with pytest.raises(InputError, match="The time column 'week' has negative values"):
        survival(negative, negative, negative, ROSSI_KINDS, "week", "arrest")
    with pytest.raises(InputError, match="The time column 'fin' must hold numbers"):
        survival(frame, frame, frame, ROSSI_KINDS, "fin", "arrest")


def test_an_event_column_the_avatars_averaged_is_said_so_not_counted_with_the_real_values():
    # a 0/1 event synthesized as a number: "it has 6 values" counted the avatars' averaged values (issue 28)
    frame = rossi()
    averaged = frame.assign(arrest=np.where(np.arange(len(frame)) % 3 == 0, 0.4, frame["arrest"]))
    with pytest.raises(InputError, match=r"^The avatars' event column 'arrest' holds values the real rows do not "
                                         r"\(0\.4\): it was synthesized as a number\. Give it the kind categorical"):
        survival(frame, frame, averaged, ROSSI_KINDS, "week", "arrest")


def test_durations_are_read_in_days_and_missing_rows_left_out():
    frame = pd.DataFrame({"stay": pd.to_timedelta([1, 2, 3, 4, None, 6], unit="D"),
                          "died": ["no", "yes", "no", "yes", "yes", "no"]})
    kinds = {"stay": Kind.NUMERIC, "died": Kind.CATEGORICAL}
    result = survival(frame, frame, frame, kinds, "stay", "died")
    (curve,) = result.curves["real"]
    assert result.unit == "days" and result.event_value == "yes" and result.times[-1] == 6.0
    assert (curve.rows, curve.events) == (5, 2)
    # day 1 censored; day 2: a death among 4 at risk, S = 3/4; day 3 censored; day 4: a death among 2, S = 3/8
    at = dict(zip(result.times, curve.survival, strict=True))
    assert at[3.0] == pytest.approx(0.75) and at[6.0] == pytest.approx(0.375)


@pytest.mark.parametrize(("levels", "event"), [(["0", "1"], "1"), (["False", "True"], "True"), (["no", "yes"], "yes"),
                                              (["death", "survived"], "death"), (["alive", "dead"], "dead"),
                                              (["censored", "relapse"], "relapse"), (["1", "2"], "2"),
                                              (["-1", "1"], "1")])
def test_the_event_is_read_from_the_values_names(levels, event):
    assert event_of("e", levels) == event


def test_an_event_the_names_do_not_tell_is_asked_for():
    with pytest.raises(InputError, match="The event column 'e' holds 'A' and 'B': say which value means the event "
                                         "\\(event_value=B, for example\\)"):
        event_of("e", ["A", "B"])
    frame = pd.DataFrame({"t": [1.0, 2.0, 3.0, 4.0], "e": ["A", "B", "A", "B"]})
    kinds = {"t": Kind.NUMERIC, "e": Kind.CATEGORICAL}
    assert survival(frame, frame, frame, kinds, "t", "e", event_value="A").curves["real"][0].events == 2


def test_a_level_without_any_event_has_no_invented_hazard_ratio():
    """Level C never has the event: its Cox ratio would be about 1e-8 with no upper bound; it is not estimable."""
    frame = rossi().assign(level=np.where(np.arange(432) % 10 == 0, "C", np.where(np.arange(432) % 2, "A", "B")))
    frame.loc[frame["level"] == "C", "arrest"] = 0
    kinds = {**ROSSI_KINDS, "level": Kind.CATEGORICAL}
    result = survival(apply_kinds(frame, kinds), apply_kinds(frame, kinds), apply_kinds(frame, kinds), kinds, "week",
                      "arrest", group="level")
    ratios = {ratio.term: ratio for ratio in result.hazard_ratios}
    assert ratios["level = C"].real is None and ratios["level = B"].real is not None
    assert any("not estimable (no event in the level" in note and "level = C" in note for note in result.notes)
