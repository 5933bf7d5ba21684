"""A run of one table or of linked tables on one base (core/workflows/runs.py): the evaluations the pages choose
among, each person table's verdict, a fix applied, the attacks run again and the avatars of every row."""

import warnings
from dataclasses import replace

import numpy as np
import pytest

from core.dataset import Dataset
from core.engine.parameters import Parameters
from core.metrics.attack import Knowledge
from core.workflows.latent import LATENT_POINTS
from core.workflows.linked_run import generate_linked
from core.workflows.plan import ColumnPlan
from core.workflows.run import generate_judged
from tests.engine.test_linked_tables import clinical, schema
from tests.support import mixed_table


@pytest.fixture(scope="module")
def table_run():
    frame = mixed_table(600, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return frame, generate_judged(frame, ColumnPlan(), Parameters(k=2, seed=1), table_name="t", fingerprint="f")


@pytest.fixture(scope="module")
def linked_run():
    frames = clinical(300)
    return frames, generate_linked(Dataset.from_dict(schema()), frames, Parameters(seed=3, holdout_min_rows=100),
                                   search=False)


def test_one_table_is_one_scored_person_table_with_its_rows_and_latent_view(table_run):
    frame, run = table_run
    [scored] = run.scored_tables()
    assert (scored.table_name, scored.key, scored.person, scored.individual) == ("t", "", True, True)
    assert scored.evaluation is run.evaluation and scored.latent is run.latent
    assert scored.avatars is run.avatars and scored.originals is run.avatarizer.working_data_
    assert list(run.people(scored).columns) == run.attacked_columns == list(run.evaluation.kinds)
    assert len(run.people(scored)) == len(run.evaluation.privacy["hidden_rate"].breakdown["hidden"])  # one each
    assert run.person_verdicts == {"t": run.verdict} and run.ready == run.verdict.ready
    assert run.judged_tables() == [scored]
    assert run.avatarizers == {"t": run.avatarizer} and run.knowledge == run.plan.knowledge


def test_linked_tables_are_each_person_table_with_its_family_then_each_table_alone(linked_run):
    _frames, run = linked_run
    scored = run.scored_tables()
    assert [table.key for table in scored] == ["person:patients", "table:patients", "table:stays",
                                               "table:prescriptions"]
    assert [table.individual for table in scored] == [True, True, False, False]  # patients are people; stays not
    assert scored[0].evaluation is run.evaluation.persons["patients"]
    assert len(run.people(scored[0])) == len(scored[0].evaluation.privacy["hidden_rate"].breakdown["hidden"])
    assert run.people(scored[2]) is None  # stays are not people
    assert "stays: number" in run.attacked_columns  # what a person's stays add up to
    assert [table.key for table in run.judged_tables()] == ["person:patients"]  # what the verdict judges
    assert run.person_verdicts is run.verdict.persons and run.ready == run.verdict.ready
    assert set(run.avatarizers) == {"patients", "stays", "prescriptions"} and run.held_out


def test_a_fix_applied_is_the_run_its_kind_applies(table_run):
    _frame, run = table_run
    assert run.verdict.fix is not None and run.verdict.fix.made is not None
    applied = run.with_fix("t")
    assert applied.avatarizer is run.verdict.fix.made


def test_the_fix_searched_after_the_avatars_are_shown_is_the_fix_of_a_run_judged_at_once(table_run):
    """Issue 51: the dashboard shows the avatars and their figures, then searches their fix (``with_fix_search``):
    the same fix, the same settings tried with the same figures, the avatars' own time unchanged, each setting
    said on a bar that only moves forward."""
    frame, run = table_run
    shown = replace(run, verdict=None, elapsed_s=run.made_s)
    assert shown.awaits_fix_search and not run.awaits_fix_search
    said = []
    searched = shown.with_fix_search({"t": frame}, lambda step, share: said.append((step, share)))
    assert not searched.awaits_fix_search and searched.avatarizer is run.avatarizer
    assert searched.made_s == pytest.approx(run.made_s) and searched.elapsed_s > searched.made_s
    verdict, once = searched.verdict, run.verdict
    assert verdict.fix.instruction == once.fix.instruction and verdict.fix.parameters == once.fix.parameters
    assert [(fix.instruction, {name: result.value for name, result in fix.evaluation.privacy.items()})
            for fix in verdict.tried] == [(fix.instruction, {name: result.value for name, result in
                                                              fix.evaluation.privacy.items()}) for fix in once.tried]
    shares = [share for _step, share in said]
    assert len(said) == len(verdict.tried) and shares == sorted(shares) and 0 < shares[0] and shares[-1] < 1
    assert all(step.startswith("Checking a fix: ") for step, _share in said)


def test_linked_tables_searched_after_they_are_shown_keep_their_avatars_and_time(linked_run):
    frames, run = linked_run
    searched = run.with_fix_search(frames)
    assert searched.fitted is run.fitted and not searched.awaits_fix_search
    assert searched.made_s == pytest.approx(run.made_s)
    assert searched.awaits_fix_search is False and run.awaits_fix_search == any(
        verdict.status == "not ready" for verdict in run.verdict.persons.values())


def test_the_attacks_run_again_take_the_new_attacker_and_keep_the_avatars(table_run, linked_run):
    frame, run = table_run
    known = Knowledge(known=tuple(run.attacked_columns[:2]), sensitive=(run.attacked_columns[2],))
    again = run.rescored(known, {"t": frame})
    assert again.knowledge == known and again.avatarizer is run.avatarizer
    frames, linked = linked_run
    known = Knowledge(known=("age", "stays: number"), sensitive=("sex",))
    again = linked.rescored(known, frames)
    assert again.knowledge == known and again.fitted is linked.fitted
    for made in (run.rescored(Knowledge(known=tuple(run.attacked_columns[:2])), {"t": frame}, search=False),
                 linked.rescored(known, frames, search=False)):  # the dashboard's: the fix searched after
        assert not any(verdict.searched for verdict in made.person_verdicts.values())


def test_the_avatars_of_every_row_keep_the_settings_without_a_holdout(table_run):
    frame, run = table_run
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = run.every_row({"t": frame})
    assert len(release.avatars) == len(frame) and not release.held_out
    assert release.parameters.k == run.parameters.k and release.parameters.seed == run.parameters.seed


def test_the_map_of_who_is_exposed_among_linked_persons_places_every_person_and_avatar(linked_run):
    _frames, run = linked_run
    person, alone_people, stays = run.scored_tables()[0], run.scored_tables()[1], run.scored_tables()[2]
    latent = run.exposure_latent(person)
    split = person.evaluation.split
    assert len(split.avatars) == len(split.originals) == len(run.people(person))  # paired: one avatar each
    assert latent.original_rows.max() < len(run.people(person)) and latent.originals.shape[1] >= 2
    assert len(latent.avatars) == min(len(split.avatars), LATENT_POINTS)
    assert run.exposure_latent(alone_people) is not None and run.exposure_latent(stays) is None  # stays: no people
    again = run.exposure_latent(person)
    np.testing.assert_array_equal(again.originals, latent.originals)  # the run's seed: the same map


def test_without_a_holdout_the_map_still_holds_every_avatar_not_the_half_compared():
    frames = clinical(200)
    run = generate_linked(Dataset.from_dict(schema()), frames, Parameters(seed=3, holdout=False), search=False)
    person = run.scored_tables()[0]
    split = person.evaluation.split
    assert len(split.working_avatars) < len(split.avatars) == len(run.people(person)) == 200
    assert len(run.exposure_latent(person).avatars) == 200
