"""The release a report documents (core/workflows/release.py): its JSON round-trips, bad fields are refused in one
line, and the recipient sets the attacker (decisions 6.7)."""

import warnings

import pytest

from core.engine.parameters import Parameters
from core.errors import InputError
from core.metrics.attack import Knowledge
from core.workflows.plan import ColumnPlan
from core.workflows.release import OPEN_DATA, RECIPIENTS, Decision, Release
from core.workflows.run import generate_judged
from tests.support import mixed_table

FILLED = Release(purpose="teaching", controller="City office", recipient="contract", data_subjects="patients",
                 data_kind="stays", sensitivity="special_category",
                 decision=Decision(residual_risk="inference 4 % on income", accepted_by="J. Doe, DPO",
                                   date="2026-12-06", review_date="2027-06-06"))


def test_the_release_round_trips_through_its_json_and_a_metrics_document():
    assert Release.from_json(FILLED.to_json()) == FILLED
    assert Release.from_json({"verdict": {}, "release": FILLED.to_json()}) == FILLED  # a whole metrics JSON
    assert Release.from_json({}) == Release() and not Release().decision.decided and FILLED.decision.decided
    assert Release.from_json({"purpose": "  spaced  "}).purpose == "spaced"


@pytest.mark.parametrize(("document", "said"), [
    ({"purpos": "x"}, "'purpos' is not a field of the release"),
    ({"recipient": "everyone"}, "recipient 'everyone' is not one of open_data, contract"),
    ({"sensitivity": "high"}, "sensitivity 'high' is not one of personal"),
    ({"decision": {"date": "06/12/2026"}}, "date '06/12/2026' is not a date: write it as YYYY-MM-DD"),
    ({"decision": {"date": "2026-12-06", "review_date": "2026-01-01"}}, "comes before its date"),
    ({"decision": {"date": "20260601"}}, "date '20260601' is not a date: write it as YYYY-MM-DD"),
    ({"decision": {"date": "2026-02-30"}}, "date '2026-02-30' is not a date"),
    ({"decision": {"by": "me"}}, "'by' is not a field of the release"),
    ({"purpose": 3}, "'purpose' must be text"),
    ({"decision": "yes"}, "'decision' must be an object"),
    (["a list"], "expected a JSON object"),
])
def test_a_release_that_is_not_one_is_refused_in_one_line(document, said):
    with pytest.raises(InputError, match=said.replace("(", r"\(")) as raised:
        Release.from_json(document, "--release r.json")
    assert str(raised.value).startswith("--release r.json") or "release" in str(raised.value)
    assert "\n" not in str(raised.value)


def test_open_data_widens_the_attacker_to_every_variable_not_sensitive_and_the_others_keep_the_users():
    chosen = Knowledge(known=("age",), sensitive=("income",), precision=(("age", 5.0),))
    columns = ["age", "sex", "income", "zip"]
    widened = Release(recipient=OPEN_DATA).attacker(chosen, columns)
    assert widened.known == ("age", "sex", "zip") and widened.sensitive == ("income",)
    assert widened.precision == (("age", 5.0),)
    for recipient in ["", *(name for name in RECIPIENTS if name != OPEN_DATA)]:
        assert Release(recipient=recipient).attacker(chosen, columns) is chosen


def test_the_recipient_changes_the_attacks_of_a_run_and_its_report_says_so():
    from tests.support import html_of as build_html_report

    frame = mixed_table(600, seed=4)
    chosen = ColumnPlan(knowledge=Knowledge(known=("age",), sensitive=("colour",)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = {recipient: generate_judged(frame, chosen, Parameters(k=5, seed=1), table_name="t.csv", fingerprint="f",
                                           release=Release(recipient=recipient))
                for recipient in ("contract", OPEN_DATA)}
    assert runs["contract"].knowledge == chosen.knowledge
    scored = runs[OPEN_DATA].attacked_columns
    assert runs[OPEN_DATA].knowledge.known == tuple(name for name in scored if name != "colour")
    assert len(runs[OPEN_DATA].knowledge.known) > 1
    assert runs[OPEN_DATA].evaluation.parameters["attacker"]["known"] == list(runs[OPEN_DATA].knowledge.known)
    report = build_html_report(runs[OPEN_DATA])
    attacker = report.split("<h2>3. The attacker</h2>")[1].split("<h2>")[0]
    assert "The avatars are open data" in attacker and "every variable that is not sensitive" in attacker
    assert all(name in attacker for name in runs[OPEN_DATA].knowledge.known)
    assert "A third party under contract" in build_html_report(runs["contract"])
    # the fix search and a re-run of the attacks keep the recipient's attacker
    again = runs[OPEN_DATA].rescored(Knowledge(known=("age",), sensitive=("colour",)), {"t.csv": frame})
    assert again.knowledge == runs[OPEN_DATA].knowledge and again.release.recipient == OPEN_DATA
    assert runs[OPEN_DATA].attacker_for(chosen.knowledge) == runs[OPEN_DATA].knowledge  # the one rule, read back


def test_a_linked_fix_keeps_the_release_it_was_searched_for():
    # a helper's review: a linked run's fix came back with no release ("No recipient stated" in its report)
    from core.dataset import Dataset
    from core.workflows.linked_run import generate_linked, linked_rerun
    from tests.engine.test_linked_tables import clinical, schema

    release = Release(purpose="a study", recipient="internal")
    frames = clinical(200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = generate_linked(Dataset.from_dict(schema()), frames, Parameters(seed=1), search=False, release=release)
        person = next(iter(run.verdict.persons))
        remade = linked_rerun(run, frames, person)(run.parameters.for_table(run.dataset.tables[person]),
                                                   ColumnPlan(run.dataset.tables[person], run.knowledge))
    assert run.release == release and remade.made.release == release
