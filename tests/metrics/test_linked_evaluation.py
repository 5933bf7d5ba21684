"""The metrics of linked tables (core/metrics/linked_evaluation.py) and their verdict (core/workflows/linked_run.py):
the enrichment of a person by hand, the originals scored against themselves, a broken link judged."""

import numpy as np
import pandas as pd
import pytest

from core.dataset import Dataset
from core.engine.dataset_avatarizer import DatasetAvatarizer
from core.metrics.linked_evaluation import _EnrichmentPlan, _keys, evaluate_linked
from core.workflows.linked_run import linked_verdict, scored
from tests.engine.test_linked_tables import clinical, schema

SMALL = Dataset.from_dict({"tables": {"p": {"primary_key": "id"},
                                      "c": {"primary_key": "cid", "columns": {"x": {"kind": "numeric"}}},
                                      "g": {"columns": {"dose": {"kind": "numeric"}}}},
                           "links": [{"parent": "p", "key": "id", "child": "c", "foreign_key": "p"},
                                     {"parent": "c", "key": "cid", "child": "g", "foreign_key": "c"}]})


def test_a_person_enriched_by_hand():
    # p1 has children 10 (x 2, ward A, grandchildren 2) and 11 (x 4, ward B, none); p2 none; p3 child 12 (x 6, A, 1)
    frames = {"p": pd.DataFrame({"id": [1, 2, 3], "age": [30, 40, 50]}),
              "c": pd.DataFrame({"cid": [10, 11, 12], "p": [1, 1, 3], "x": [2.0, 4.0, 6.0], "ward": ["A", "B", "A"]}),
              "g": pd.DataFrame({"c": [10, 10, 12], "dose": [1.0, 3.0, 5.0]})}
    plan = _EnrichmentPlan(SMALL, {name: _keys(SMALL, name) for name in SMALL.tables}, frames)
    enriched = plan.enriched("p", frames)
    assert enriched["age"].tolist() == [30, 40, 50]
    assert enriched["c: number"].tolist() == [2, 0, 1]
    assert enriched["c: mean x"].tolist()[::2] == [3.0, 6.0] and np.isnan(enriched["c: mean x"][1])
    assert enriched["c: share ward = A"].tolist()[::2] == [0.5, 1.0]
    # the children's own aggregates averaged in turn: grandchildren per child 2, 0 -> 1; 1 -> 1
    assert enriched["c: mean g: number"].tolist()[::2] == [1.0, 1.0]
    assert enriched["c: mean g: mean dose"].tolist()[::2] == [2.0, 5.0]  # child 11's mean dose is missing
    assert "id" not in enriched and "c: mean p" not in enriched  # keys left out
    assert set(plan.aggregated) >= {"c: number", "c: mean x", "g: number"}  # numeric whatever their values


def test_the_originals_scored_as_their_own_avatars_keep_every_link():
    frames = clinical(300)
    dataset = Dataset.from_dict(schema())
    halves = DatasetAvatarizer(schema(), seed=0, holdout_min_rows=10).fit(frames)
    working = halves.working_data_
    identity = {name: np.arange(len(frame)) for name, frame in working.items()}
    evaluation = evaluate_linked(dataset, working, halves.holdout_data_, working, paired_orders=identity, seed=0)
    orphans = working["stays"]["patient_id"].eq("GHOST").sum()  # a value no patient has: the originals' own gap
    named = working["stays"]["patient_id"].notna().sum()
    integrity = [metrics["referential_integrity"].value for metrics in evaluation.links.values()]
    assert orphans and integrity == [pytest.approx(100 * (1 - orphans / named)), 100.0]
    for metrics in evaluation.links.values():
        assert metrics["children_per_parent"].value == 100.0
        assert metrics["children_per_parent"].breakdown["cardinality_shape_similarity"] == 1.0
    # each person is their own avatar: hidden only where persons are alike (same age and sex, no stay: ties, 6.1)
    assert evaluation.persons["patients"].privacy["hidden_rate"].value < 5
    assert set(evaluation.to_json()) == {"tables", "links", "persons"}


def test_a_fitted_run_is_judged_and_a_broken_link_is_never_ready():
    fitted = DatasetAvatarizer(schema(), seed=1).fit(clinical(400))
    evaluation = scored(fitted)
    verdict = linked_verdict(fitted.dataset_, evaluation)
    assert list(verdict.persons) == ["patients"] and verdict.broken_links == []
    assert verdict.persons["patients"].evaluation is evaluation.persons["patients"]
    broken = dict(fitted.avatars_, stays=fitted.avatars_["stays"].assign(patient_id="nobody"))
    evaluation = evaluate_linked(fitted.dataset_, fitted.working_data_, fitted.holdout_data_, broken,
                                 paired_orders=dict.fromkeys(broken), seed=0)
    judged = linked_verdict(fitted.dataset_, evaluation)
    assert evaluation.links["patients.patient_id -> stays.patient_id"]["referential_integrity"].value == 0.0
    assert not judged.ready and judged.status == "not ready"
    assert judged.broken_links == ["patients.patient_id -> stays.patient_id"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_linkage_keeps_the_family_sizes(seed):
    fitted = DatasetAvatarizer(schema(), seed=seed).fit(clinical(600, seed=seed))
    sizes = scored(fitted).links["patients.patient_id -> stays.patient_id"]["children_per_parent"]
    assert sizes.value > 85 and sizes.breakdown["cardinality_shape_similarity"] > 0.85


def _relations_scored(stays_entry: dict) -> list:
    """The relations the evaluation of a linked table scores, for the stays' entry of the schema given."""
    rng = np.random.default_rng(3)
    patients = pd.DataFrame({"pid": range(80), "age": rng.integers(20, 90, 80)})
    a, b, days = rng.integers(0, 50, 400), rng.integers(0, 50, 400), rng.integers(1, 15, 400)
    long = (days >= 7).astype(int)
    long[:6] = 1 - long[:6]  # 6 rows of 400 off the threshold: found no more, declared instead
    stays = pd.DataFrame({"sid": range(400), "pid": rng.integers(0, 80, 400), "a": a, "b": b, "total": a + b,
                          "days": days, "long": long})
    dataset = Dataset.from_dict({"tables": {"patients": {"primary_key": "pid"},
                                            "stays": {"primary_key": "sid", **stays_entry}},
                                 "links": [{"parent": "patients", "key": "pid", "child": "stays",
                                            "foreign_key": "pid"}]})
    frames = {"patients": patients, "stays": stays}
    evaluation = evaluate_linked(dataset, frames, {"patients": None, "stays": None}, frames,
                                 paired_orders={name: np.arange(len(frame)) for name, frame in frames.items()})
    return [relation for relation, _originals, _avatars in
            evaluation.tables["stays"].signal["broken_relations"].breakdown.get("per_relation", [])]


def test_a_linked_tables_relations_are_scored_as_its_schema_asks():
    # issue 48: a linked table's metrics found the relations again from scratch, whatever the schema said
    assert [(relation.kind, relation.derived) for relation in _relations_scored({})] == [("total", "total")]
    declared = _relations_scored({"relations": ["long = days < 7"]})
    assert [(relation.kind, relation.derived) for relation in declared] == [("intervals", "long"), ("total", "total")]
    assert declared[0].cuts == (7.0,) and declared[0].broken == 6 / 400
    assert _relations_scored({"ignored_relations": ["total"]}) == []
    assert _relations_scored({"find_relations": False}) == []
    assert [relation.derived for relation in _relations_scored({"find_relations": False,
                                                                "relations": ["long = days < 7"]})] == ["long"]
