"""Linked tables avatarized together (core/engine/linked_tables.py, SPEC 12 synthesis): keys, counts, holdout by
family, the enrichment by hand, each link method, the parent-child relation kept, determinism."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.dataset import Dataset, Link
from core.engine.dataset_avatarizer import DatasetAvatarizer
from core.engine.link_kinds import Assignment, original_order
from core.engine.linked_tables import holdout_by_family, parent_rows_of
from core.engine.parameters import Parameters
from core.errors import InputError


def clinical(n_patients=300, seed=0):
    """Patients -> stays -> prescriptions, invented: older patients stay more often and longer; stays without a
    patient (5 missing keys, 3 orphans)."""
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 90, n_patients)
    patients = pd.DataFrame({"patient_id": [f"P{i:04d}" for i in range(n_patients)], "age": age,
                             "sex": rng.choice(["F", "M"], n_patients)})
    counts = rng.poisson(age / 30)
    n_stays = int(counts.sum())
    owner = np.repeat(np.arange(n_patients), counts)
    stays = pd.DataFrame({"stay_id": np.arange(n_stays) + 1000,
                          "patient_id": patients.patient_id.to_numpy()[owner].astype(object),
                          "days": (age[owner] / 5 + rng.normal(0, 1.5, n_stays)).round().clip(1),
                          "ward": rng.choice(["A", "B", "C"], n_stays)})
    stays.loc[:4, "patient_id"] = None
    stays.loc[5:7, "patient_id"] = "GHOST"
    per_stay = rng.poisson(2, n_stays)
    prescriptions = pd.DataFrame({"stay_id": np.repeat(stays.stay_id.to_numpy(), per_stay),
                                  "drug": rng.choice(["x", "y", "z"], per_stay.sum()),
                                  "dose": rng.normal(10, 2, per_stay.sum()).round(1)})
    return {"patients": patients, "stays": stays, "prescriptions": prescriptions}


def schema(method="linear_sum_assignment", **table):
    return {"tables": {"patients": {"primary_key": "patient_id", "k": 5, **table},
                       "stays": {"primary_key": "stay_id", "k": 5, **table}, "prescriptions": {"k": 5, **table}},
            "links": [{"parent": "patients", "key": "patient_id", "child": "stays", "foreign_key": "patient_id",
                       "method": method},
                      {"parent": "stays", "key": "stay_id", "child": "prescriptions", "foreign_key": "stay_id",
                       "method": method}]}


def children_of(parents, children, key, foreign_key):
    return children[foreign_key].value_counts().reindex(parents[key], fill_value=0).to_numpy()


@pytest.mark.parametrize("method", ["linear_sum_assignment", "minimum_distance", "original_order"])
def test_every_output_keeps_its_links_with_new_keys_and_the_real_totals(method):
    frames = clinical()
    fitted = DatasetAvatarizer(schema(method), seed=2).fit(frames)
    avatars, working = fitted.avatars_, fitted.working_data_
    for link in Dataset.from_dict(schema(method)).links:
        child, parent = avatars[link.child], avatars[link.parent]
        present = child[link.foreign_key].notna()
        assert child[link.foreign_key][present].isin(parent[link.key]).all()  # referential integrity: 100 %
        real_rows = parent_rows_of(link, working)
        assert len(child) == len(working[link.child])  # the total of children per table
        assert (~present).sum() == (real_rows < 0).sum()  # children without a parent: the same number
    for name, frame in frames.items():  # no real key in the output
        assert list(avatars[name].columns) == list(frame.columns)
        for column in ("patient_id", "stay_id"):
            if column in frame:
                assert not set(avatars[name][column].dropna()) & set(frame[column].dropna())


def test_original_order_keeps_each_parents_number_of_children_and_needs_paired_avatars():
    frames = clinical()
    fitted = DatasetAvatarizer(schema("original_order"), seed=1).fit(frames)
    patients = fitted.avatarizers_["patients"]
    # the avatar made from each working patient has that patient's number of stays
    real = children_of(fitted.working_data_["patients"], fitted.working_data_["stays"], "patient_id", "patient_id")
    made = children_of(fitted.avatars_["patients"], fitted.avatars_["stays"], "patient_id", "patient_id")
    assert made[patients.paired_order_].tolist() == real.tolist()
    fast_dp = schema("original_order")
    fast_dp["tables"]["stays"] = {"primary_key": "stay_id", "fast_dp_epsilon": 1.0}
    with pytest.raises(InputError, match=r"^Link patients.patient_id -> stays.patient_id: original_order .*Avatar"):
        DatasetAvatarizer(fast_dp, seed=1).fit(frames)


@pytest.mark.parametrize("method", ["linear_sum_assignment", "minimum_distance"])
def test_the_parent_child_relation_and_the_children_per_parent_are_kept(method):
    # real: days = age / 5 + noise (correlation about 0.9 on the join), stays ~ Poisson(age / 30); a linkage that
    # ignored the parent would give about 0 on the join
    frames = clinical(600)
    joined_real = frames["stays"].merge(frames["patients"], on="patient_id")
    real = np.corrcoef(joined_real.days, joined_real.age)[0, 1]
    for seed in range(3):
        fitted = DatasetAvatarizer(schema(method), seed=seed).fit(frames)
        joined = fitted.avatars_["stays"].merge(fitted.avatars_["patients"], on="patient_id")
        assert real > 0.85 and np.corrcoef(joined.days, joined.age)[0, 1] > 0.6
        counts = children_of(fitted.avatars_["patients"], fitted.avatars_["stays"], "patient_id", "patient_id")
        assert np.corrcoef(fitted.avatars_["patients"].age, counts)[0, 1] > 0.25  # older: more stays (real ~0.5)


def test_the_same_seed_gives_the_same_avatars_and_another_seed_others():
    frames = clinical(200)
    first, second, other = (DatasetAvatarizer(schema(), seed=seed).fit(frames) for seed in (4, 4, 5))
    for name in frames:
        pd.testing.assert_frame_equal(first.avatars_[name], second.avatars_[name])
    assert not first.avatars_["stays"].equals(other.avatars_["stays"])


def test_the_holdout_never_splits_a_family():
    frames = clinical(300)
    dataset = Dataset.from_dict(schema())
    working, holdout = holdout_by_family(dataset, frames, Parameters(holdout_min_rows=10), np.random.default_rng(0))
    assert len(working["patients"]) == 150 and len(holdout["patients"]) == 150
    for side, other in ((working, holdout), (holdout, working)):
        for link in dataset.links:
            in_side = side[link.child][link.foreign_key].dropna()
            assert not in_side.isin(other[link.parent][link.key]).any()  # no child on one side, its parent on other
    for name in frames:
        assert len(working[name]) + len(holdout[name]) == len(frames[name])
    fitted = DatasetAvatarizer(schema(), seed=0, holdout_min_rows=10).fit(frames)
    assert len(fitted.avatars_["patients"]) == 150 and len(fitted.holdout_data_["stays"]) > 0
    untouched, _ = holdout_by_family(dataset, frames, Parameters(holdout=False), np.random.default_rng(0))
    assert all(untouched[name].equals(frame.reset_index(drop=True)) for name, frame in frames.items())


def test_the_enrichment_by_hand():
    # 3 parents; children of parents 0, 0, 2 and one without a parent; their own first coordinates below
    dataset = Dataset.from_dict({"tables": {"p": {"primary_key": "id"}, "c": {}},
                                 "links": [{"parent": "p", "key": "id", "child": "c", "foreign_key": "p"}]})
    link = Link("p", "id", "c", "p")
    rows = np.array([0, 0, 2, -1])
    own = np.array([[1.0, 4.0, 9.0], [3.0, 0.0, 9.0], [5.0, -2.0, 9.0], [7.0, 7.0, 9.0]])
    added, weights = Assignment(dataset, link, rows, own).parent_columns(3, link_weight=1.5)
    assert [values.tolist() for values in added.values()] == [[2, 0, 1], [2.0, 0.0, 5.0], [2.0, 0.0, -2.0]]
    assert list(weights.values()) == [0.5, 0.5, 0.5]  # three columns sharing link_weight 1.5
    assert all(name.startswith("__link__ p.id -> c.p: ") for name in added)


def test_the_columns_a_link_adds_are_passed_to_the_synthesis_not_put_in_the_tables_parameters():
    """Issue 48: the columns a link adds were pushed into a table's parameters under a name prefix, then stripped back
    out by that prefix for the JSON. They are passed to the fit: the synthesis reads them (numeric, of their weight),
    the table's parameters are the user's."""
    fitted = DatasetAvatarizer(schema(), seed=0, holdout_min_rows=10).fit(clinical(100))
    stays = fitted.avatarizers_["stays"]
    added = stays.link_columns_
    assert added and all(name.startswith("__link__ ") for name in added)
    assert not any(name.startswith("__link__ ") for name in {**stays.get_params()["column_kinds"],
                                                            **stays.get_params()["column_weights"]})
    synthesis = stays.synthesis_parameters_
    assert {name: synthesis.column_kinds[name] for name in added} == dict.fromkeys(added, "numeric")
    assert {name: synthesis.column_weights[name] for name in added} == added
    assert all(stays.kinds_[name].value == "numeric" for name in added)  # typed as the synthesis was told


def test_a_tables_refusal_names_the_table():
    frames = clinical(100)
    too_large = schema()
    too_large["tables"]["stays"]["k"] = len(frames["stays"]) + 5
    with pytest.raises(InputError, match=r"^Table 'stays': .*k") as raised:
        DatasetAvatarizer(too_large, seed=0).fit(frames)
    assert "\n" not in str(raised.value)


def test_a_child_of_two_parents_is_linked_to_both():
    # flights of planes and of airlines (nycflights13's shape): each link rebuilt on its own, the totals kept
    rng = np.random.default_rng(0)
    planes = pd.DataFrame({"tail": [f"N{i:03d}" for i in range(60)], "seats": rng.integers(50, 300, 60)})
    airlines = pd.DataFrame({"code": [f"A{i}" for i in range(8)], "size": rng.integers(1, 9, 8)})
    flights = pd.DataFrame({"tail": rng.choice(planes["tail"].to_numpy(), 400),
                            "carrier": rng.choice(airlines["code"].to_numpy(), 400), "delay": rng.normal(size=400)})
    two_parents = {"tables": {"planes": {"primary_key": "tail"}, "airlines": {"primary_key": "code", "k": 3},
                              "flights": {}},
                   "links": [{"parent": "planes", "key": "tail", "child": "flights", "foreign_key": "tail"},
                             {"parent": "airlines", "key": "code", "child": "flights", "foreign_key": "carrier"}]}
    avatars = DatasetAvatarizer(two_parents, k=5, seed=1).fit(
        {"planes": planes, "airlines": airlines, "flights": flights}).avatars_
    assert avatars["flights"]["tail"].isin(avatars["planes"]["tail"]).all()
    assert avatars["flights"]["carrier"].isin(avatars["airlines"]["code"]).all()
    assert list(avatars["flights"].columns) == ["tail", "carrier", "delay"] and len(avatars["flights"]) == 400


def test_a_child_of_two_large_parents_keeps_both_links_under_the_holdout():
    # both roots split apart sent a child to one side and half its second parents to the other: 380 of 731 links
    # lost; one root is split, the other keeps every row
    rng = np.random.default_rng(5)
    p = pd.DataFrame({"pid": range(600), "a": rng.normal(size=600)})
    q = pd.DataFrame({"qid": range(600), "b": rng.normal(size=600)})
    c = pd.DataFrame({"pid": rng.integers(0, 600, 1500), "qid": rng.integers(0, 600, 1500), "x": rng.normal(size=1500)})
    two_roots = {"tables": {"p": {"primary_key": "pid"}, "q": {"primary_key": "qid"}, "c": {}},
                 "links": [{"parent": "p", "key": "pid", "child": "c", "foreign_key": "pid"},
                           {"parent": "q", "key": "qid", "child": "c", "foreign_key": "qid"}]}
    fitted = DatasetAvatarizer(two_roots, k=5, seed=1).fit({"p": p, "q": q, "c": c})
    assert len(fitted.working_data_["p"]) == 300 and fitted.holdout_data_["q"] is None
    assert fitted.avatars_["c"]["qid"].notna().all() and fitted.avatars_["c"]["pid"].notna().all()


@pytest.mark.parametrize("change, expected", [
    (lambda s, f: s["tables"]["stays"].update(seed=3), "Table 'stays': \"seed\" is one value for every linked table"),
    (lambda s, f: f.update(stays=f["stays"].assign(**{"__link__ x": 1.0})),
     "Table 'stays', column '__link__ x': names starting with \"__link__\" are the synthesis' own"),
    (lambda s, f: s["links"][0].update(method="original_order") or s["tables"]["stays"].update(
        {"fast_dp_epsilon": 1.0, "k": None}),
     "Link patients.patient_id -> stays.patient_id: original_order links each child avatar"),
    (lambda s, f: s["tables"]["stays"].update(fast_dp_epsilon=1.0),
     "Table 'stays': k and fast_dp_epsilon are mutually exclusive"),
])
def test_what_linked_tables_cannot_take_is_refused_before_any_work(change, expected):
    refused, frames = schema(), clinical(100)
    change(refused, frames)
    with pytest.raises(InputError) as raised:
        DatasetAvatarizer(refused, seed=0).fit(frames)
    assert str(raised.value).startswith(expected) and "\n" not in str(raised.value)
    with pytest.raises(InputError, match="^link_weight must be a number greater than 0 and at most 1,000,000, got 0.*--link-weight"):
        DatasetAvatarizer(schema(), seed=0, link_weight=0).fit(clinical(100))


def test_original_order_by_hand():
    # 3 parents, 7 children: child originals 0..6 belong to parents [1, 0, 2, 1, 2, 0, 1] (child 4's parent unknown:
    # -1); parent avatars are shuffled so that original parent j is avatar row paired[j] = [2, 0, 1]; child avatar
    # row r is made from original argsort(child paired)[r]
    from types import SimpleNamespace

    rows = np.array([1, 0, 2, 1, -1, 0, 1])
    child = SimpleNamespace(paired_order_=np.array([3, 0, 6, 1, 5, 2, 4]))  # original i is avatar row paired[i]
    parent = SimpleNamespace(paired_order_=np.array([2, 0, 1]))
    linked = original_order(Link("p", "id", "c", "p"), {"p": parent, "c": child}, rows)
    # avatar rows 0..6 come from originals 1, 3, 5, 0, 6, 4, 2 -> their parents 0, 1, 0, 1, 1, -1, 2
    # -> parent avatars paired[0] = 2, paired[1] = 0, 2, 0, 0, none, paired[2] = 1
    assert linked.tolist() == [2, 0, 2, 0, 0, -1, 1]


def test_a_family_ordered_by_a_date_that_holds_no_relation_keeps_its_relations():
    """nycflights13's planes -> flights stopped on a traceback (KeyError 'time_hour'): each plane's flights are
    ordered by a date that takes part in none of the relations found across them (here: the first flight of each
    plane is its delivery), and the rebuild was given the relations' columns only. The rule: the rebuild reads the
    order with the relations' columns."""
    rng = np.random.default_rng(0)
    sizes = rng.integers(2, 6, 80)
    owner = np.repeat(np.arange(80), sizes)
    planes = pd.DataFrame({"tailnum": [f"N{i:03d}" for i in range(80)], "seats": rng.integers(50, 300, 80)})
    start = pd.Timestamp("2013-01-01") + pd.to_timedelta(rng.integers(0, 300, 80), unit="D")
    when = np.concatenate([start[i] + pd.to_timedelta(np.sort(rng.integers(1, 2_000, size)), unit="h")
                           for i, size in enumerate(sizes)])
    first = np.concatenate([np.r_[1, np.zeros(size - 1, dtype=int)] for size in sizes])
    flights = pd.DataFrame({"tailnum": planes.tailnum.to_numpy()[owner], "time_hour": when,
                            "delivery": np.where(first == 1, "yes", rng.choice(["no", "maybe"], len(owner))),
                            "distance": rng.integers(100, 3_000, len(owner))})
    schema = {"tables": {"planes": {"primary_key": "tailnum"}, "flights": {}},
              "links": [{"parent": "planes", "key": "tailnum", "child": "flights", "foreign_key": "tailnum"}]}
    fitted = DatasetAvatarizer(schema, Parameters(k=5, seed=1, holdout=False)).fit(
        {"planes": planes, "flights": flights})
    made = fitted.avatars_["flights"]
    ordered = made.assign(time_hour=pd.to_datetime(made.time_hour)).sort_values(["tailnum", "time_hour"],
                                                                                kind="stable")
    assert (ordered.groupby("tailnum").delivery.first() == "yes").all()  # the relation kept in every family
