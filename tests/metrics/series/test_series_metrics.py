"""The series metrics (core/metrics/series, SPEC 13): each person's statistics by hand, the three-sample score by
hand, identical data at distance 0, a trend removed or a timing changed seen, and the metrics of a linked run."""

import numpy as np
import pandas as pd
import pytest

from core.dataset import Kind
from core.engine.dataset_avatarizer import DatasetAvatarizer
from core.engine.time_series import series_of
from core.metrics.binning import hellinger_distance
from core.metrics.context import SeriesContext
from core.metrics.linked_evaluation import evaluate_linked
from core.metrics.registry import NO_TRAJECTORY, SERIES_METRICS, series_metrics
from core.metrics.series import density_hellinger, pointwise_hellinger, series_dynamics, series_timing
from core.metrics.series.trajectories import (
    Trajectories,
    lag_one_changes,
    person_means,
    person_slopes,
    scored,
)
from tests.engine.test_series_tables import longitudinal, schema


def test_each_person_s_mean_slope_and_changes_by_hand():
    # a: (0, 1) (2, 5) (4, 3); b: (1, 10); c: (0, 0) (10, 20)
    series = series_of(["a", "a", "a", "b", "c", "c"], [0, 2, 4, 1, 0, 10], [1.0, 5.0, 3.0, 10.0, 0.0, 20.0])
    assert person_means(series).tolist() == [3.0, 10.0, 10.0]
    # a: mean t 2, mean v 3; sum((t - 2)(v - 3)) = (-2)(-2) + 0 + 2 * 0 = 4; sum((t - 2)^2) = 8: 0.5. c: 20 / 10 = 2
    assert person_slopes(series).tolist() == [0.5, 2.0]
    assert lag_one_changes(series).tolist() == [4.0, -2.0, 20.0]  # never across two persons


def test_the_three_sample_score_by_hand():
    # codes: originals 0 0 1 1, reference 0 0 0 1, avatars 0 1 1 1
    result = scored(np.array([0, 0, 1, 1.0]), np.array([0, 0, 0, 1.0]), np.array([0, 1, 1, 1.0]), categorical=True)
    reference = hellinger_distance(np.array([0.5, 0.5]), np.array([0.75, 0.25]))
    avatar = hellinger_distance(np.array([0.25, 0.75]), np.array([0.75, 0.25]))
    assert result.reference_distance == pytest.approx(reference) and result.avatar_distance == pytest.approx(avatar)
    assert result.score == pytest.approx(100 * (1 - np.sqrt(avatar**2 - reference**2)))
    assert scored(np.array([1.0]), np.array([]), np.array([1.0])) is None


def sides(frame, **changed):
    """One side's trajectories of ``frame`` (persons, day, lab, symptom), with columns changed."""
    frame = frame.assign(**changed)
    kinds = {"day": Kind.NUMERIC, "lab": Kind.NUMERIC, "symptom": Kind.CATEGORICAL}
    persons = pd.factorize(frame["patient_id"])[0]
    typed = frame.assign(symptom=frame["symptom"].astype("category"))
    return Trajectories.of(persons, typed, "day", kinds, {"symptom": ["no", "yes"]})


def test_identical_data_are_at_distance_0_and_score_100():
    labs = longitudinal(200)["labs"]
    same = sides(labs)
    for result in (pointwise_hellinger.pointwise_hellinger(same, same, same, 10), density_hellinger.density_hellinger(same, same, same, 10, 3),
                   series_timing.series_timing(same, same, same), series_dynamics.series_dynamics(same, same, same)):
        assert result.value == pytest.approx(100.0), result.name
    for row in pointwise_hellinger.pointwise_hellinger(same, same, same, 10).breakdown["per_variable"]:
        assert row["avatar_distance_mean"] == 0.0 and row["avatar_distance_std"] == 0.0


def test_no_series_metric_applies_when_a_side_holds_no_measure():
    """A series 3 persons of 100 hold, all 3 in the holdout: resampling the working half's no curve was a traceback."""
    labs = longitudinal(50)["labs"]
    empty = sides(labs.iloc[:0])
    results = series_metrics(SeriesContext(empty, sides(labs), sides(labs), 10, 3))
    assert set(results) == {module.DEFINITION.name for module in SERIES_METRICS}
    assert all(result.value is None and result.not_applicable == NO_TRAJECTORY for result in results.values())


def test_a_trend_removed_and_a_timing_changed_lower_their_scores():
    real = longitudinal(400, seed=1)["labs"]
    reference = longitudinal(400, seed=2)["labs"]
    originals, other = sides(real), sides(reference)
    flat = sides(real, lab=real.groupby("patient_id")["lab"].transform("mean").round(1))  # every trend removed
    assert series_dynamics.series_dynamics(originals, other, other).value > 95
    slopes = [row for row in series_dynamics.series_dynamics(originals, other, flat).breakdown["per_statistic"]
              if row["statistic"] == "slope"]
    assert slopes[0]["score"] < 70
    stretched = sides(real, day=real["day"] * 3)  # every follow-up three times longer
    assert series_timing.series_timing(originals, other, stretched).value < series_timing.series_timing(originals, other,
                                                                                            other).value - 10


def test_a_linked_run_scores_its_series_in_the_json():
    frames = longitudinal(400)
    fitted = DatasetAvatarizer(schema(), seed=1).fit(frames)
    evaluation = evaluate_linked(fitted.dataset_, fitted.working_data_, fitted.holdout_data_, fitted.avatars_,
                                 paired_orders={name: None for name in frames}, seed=0)
    metrics = evaluation.to_json()["series"]["patients.patient_id -> labs.patient_id"]
    assert set(metrics) == {"pointwise_hellinger", "density_hellinger", "series_timing", "series_dynamics"}
    assert all(50 < metric["value"] <= 100 for metric in metrics.values()), metrics
    assert [row["variable"] for row in metrics["pointwise_hellinger"]["per_variable"]] == ["lab", "symptom"]


def test_avatars_made_elsewhere_with_their_dates_as_text_are_scored():
    """Another tool's file read without parsing its dates (SDV's PAR, read by pandas): typed as the originals'."""
    frames = longitudinal(200, dates=True)
    fitted = DatasetAvatarizer(schema(), seed=1).fit(frames)
    made = {**fitted.avatars_, "labs": fitted.avatars_["labs"].assign(day=fitted.avatars_["labs"]["day"].astype(str))}
    evaluation = evaluate_linked(fitted.dataset_, fitted.working_data_, fitted.holdout_data_, made,
                                 paired_orders={name: None for name in frames}, seed=0)
    assert evaluation.series["patients.patient_id -> labs.patient_id"]["series_timing"].value > 50
    assert "labs: slope lab" in evaluation.persons["patients"].split.working.columns
