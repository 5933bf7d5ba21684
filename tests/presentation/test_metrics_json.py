"""The metrics documents (core/presentation/metrics_json.py): each holds the evaluation's JSON of SPEC section 7,
in English whatever the language shown."""

import json
import warnings

from core.dataset import Role, Table
from core.engine.parameters import Parameters
from core.i18n import language
from core.presentation.metrics_json import evaluation_document, run_json, sweep_json
from core.workflows.release import Release
from core.workflows.plan import ColumnPlan
from core.workflows.sweep import run_sweep, sweep_settings
from core.workflows.run import generate_judged
from core.workflows.verdict import verdict_of
from tests.support import mixed_table


def made(parameters):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return generate_judged(mixed_table(600, seed=2), ColumnPlan(), parameters, table_name="t.csv",
                               fingerprint="f")


def test_a_runs_document_is_its_evaluation_with_the_runs_parameters_timings_and_verdict():
    run = made(Parameters(k=10, seed=1))
    document, section_7 = run_json(run), run.evaluation.to_json()
    assert {name: document[name] for name in ("signal", "privacy", "rows", "holdout")} == \
        {name: section_7[name] for name in ("signal", "privacy", "rows", "holdout")}
    assert document["parameters"]["method"] == "avatar" and document["parameters"]["k"] == 10
    assert document["parameters"]["seed"] == 1 and "link_weight" not in document["parameters"]  # a link's, not a table's
    assert set(run.avatarizer.timings_s_) <= set(document["timings_s"]) and "epsilon_ledger" not in document
    json.dumps(document, allow_nan=False)  # writable as it is
    with language("fr"):
        assert run_json(run)["verdict"] == document["verdict"]  # in English whatever the language shown


def test_a_fast_dp_runs_document_says_where_epsilon_goes():
    document = run_json(made(Parameters(fast_dp_epsilon=1.0, seed=1)))
    assert document["parameters"]["method"] == "fast_dp" and document["parameters"]["k"] is None
    assert document["epsilon_ledger"]["epsilon"] == 1.0


def test_an_evaluations_document_is_its_section_7_and_its_verdict():
    evaluation = made(Parameters(k=10, seed=1)).evaluation
    document = evaluation_document(evaluation, verdict_of(evaluation), Release(purpose="a study"))
    assert {name: value for name, value in document.items() if name not in ("verdict", "release")} == \
        evaluation.to_json()
    assert document["release"]["purpose"] == "a study" and document["release"]["decision"]["accepted_by"] == ""
    assert document["verdict"]["fix_settings"] is None  # nothing here re-runs avatars made elsewhere


def test_a_sweeps_document_names_the_parameters_the_points_share():
    plan, base = ColumnPlan(Table.described("t", roles={"score": Role.SET_APART})), Parameters(seed=4, ncp=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        points = run_sweep(mixed_table(600), plan, base, sweep_settings([5]), n_seeds=1)
    document = sweep_json(points, "advice", base, plan, seeds=1, elapsed_s=2.5)
    assert document["parameters"]["first_seed"] == 4 and document["parameters"]["ncp"] == 3
    assert document["parameters"]["excluded"] == ["score"] and document["timings_s"] == {"total": 2.5}
    assert document["points"] == [points[0].to_json()] and document["points"][0]["k"] == 5
