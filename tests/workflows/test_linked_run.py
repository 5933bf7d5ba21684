"""One generation of linked tables (core/workflows/linked_run.py): made, measured and judged with progress; scored
again for another attacker without new avatars; its parameters the command line's JSON."""

import pytest

from core.dataset import Dataset
from core.engine.dataset_avatarizer import DatasetAvatarizer
from core.engine.parameters import Parameters
from core.metrics.attack import Knowledge
from core.workflows.linked_run import generate_linked, linked_parameters, rescored_linked
from tests.engine.test_linked_tables import clinical, schema


@pytest.fixture(scope="module")
def run():
    steps = []
    made = generate_linked(Dataset.from_dict(schema()), clinical(300), Parameters(seed=3, holdout_min_rows=100),
                           fingerprint="abc", progress=lambda step, share: steps.append((step, share)))
    return made, steps


def test_a_generation_tells_each_table_then_the_scoring_in_order(run):
    made, steps = run
    names = [step for step, _share in steps]
    tables = [name for name in names if name.startswith("Avatarizing the table")]
    assert tables == ["Avatarizing the table patients", "Avatarizing the table stays",
                      "Avatarizing the table prescriptions"]
    assert names[-2:] == ["Measuring the avatars of every table and link", "Done"]
    shares = [share for _step, share in steps]
    assert shares == sorted(shares) and shares[-1] == 1.0


def test_a_generation_is_the_dataset_avatarizer_s_run_measured_and_judged(run):
    made, _steps = run
    alone = DatasetAvatarizer(schema(), seed=3, holdout_min_rows=100).fit(clinical(300))
    for name, avatars in alone.avatars_.items():  # the same avatars as the Python API's
        assert made.fitted.avatars_[name].equals(avatars)
    assert made.held_out and set(made.evaluation.links) == {"patients.patient_id -> stays.patient_id",
                                                            "stays.stay_id -> prescriptions.stay_id"}
    assert list(made.verdict.persons) == ["patients"]
    assert made.parameters_json() == linked_parameters(made.fitted)
    assert made.parameters_json()["tables"]["patients"]["k"] == 5  # each table's own, as the schema says
    assert made.summary().startswith("Avatars made: ") and "whole families" in made.summary()
    assert made.short_summary() == "Avatars of 3 tables: Avatar, k = 5, seed 3"
    assert made.sensitive_links() == []


def test_the_attacks_run_again_for_another_attacker_on_the_same_avatars(run):
    made, _steps = run
    assert made.evaluation.persons["patients"].privacy["inference_risk"].value is None  # no sensitive variable
    attacked = rescored_linked(made, Knowledge(("age", "stays: number"), ("sex",)))
    assert attacked.fitted is made.fitted and attacked.knowledge.sensitive == ("sex",)
    assert attacked.evaluation.persons["patients"].privacy["inference_risk"].value is not None


def test_original_order_is_said_sensitive():
    made = generate_linked(Dataset.from_dict(schema("original_order")), clinical(120), Parameters(seed=1))
    assert made.sensitive_links() == ["patients.patient_id -> stays.patient_id",
                                      "stays.stay_id -> prescriptions.stay_id"]
    assert not made.held_out and "from every row" in made.summary()
