"""A run of one table or of linked tables read alike, so that each page, widget and command is written once: the
tables it scored (each person table with everything about them, each table alone), each person table's verdict, a
fix applied, the attacks run again, the avatars of every row with the same settings."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import pandas as pd

from core.engine.pipeline import Avatarizer
from core.engine.split import Holdout
from core.metrics.attack import Knowledge
from core.metrics.evaluation import Evaluation
from core.workflows.linked_run import (
    LinkedRun,
    applied_linked_fix,
    generate_linked,
    person_evaluation,
    rescored_linked,
)
from core.workflows.run import GenerationRun, LatentView, latent_of
from core.workflows.verdict import Verdict, applied_fix, generate_judged, rescored, verdict_of_run

Run = GenerationRun | LinkedRun
Progress = Callable[[str, float], None] | None


@dataclass(frozen=True)
class ScoredTable:
    """One evaluation of a run: a person table with everything about its people (``person``: their descendants'
    aggregates as columns), a table alone, or the one table of a single-table run; ``key`` tells it apart among the
    run's (empty for a single table's)."""

    table_name: str
    evaluation: Evaluation
    person: bool
    key: str
    individual: bool  # its rows are people: who is most exposed can be shown
    originals: pd.DataFrame | None  # the rows the avatars were made from, and the avatars, as the figures compare
    avatars: pd.DataFrame | None  # them (None: a table with no column scored)
    latent: LatentView | None = None  # one table's originals and avatars on the projection's first axes


def scored_tables(run: Run) -> list[ScoredTable]:
    """The run's evaluations, person tables first: what the Utility, Analysis and Privacy pages choose among."""
    if isinstance(run, GenerationRun):
        working = run.avatarizer.working_data_
        assert working is not None  # a scored run's fit keeps its originals (never low_memory)
        return [ScoredTable(run.table_name, run.evaluation, person=True, key="", individual=True, originals=working,
                            avatars=run.avatars, latent=run.latent)]
    sides = [(run.evaluation.persons, True), (run.evaluation.tables, False)]
    return [ScoredTable(name, evaluation, person=person, key=f"{'person' if person else 'table'}:{name}",
                        individual=person or run.dataset.is_individual_level(name),
                        originals=None if evaluation.split is None else evaluation.split.working,
                        avatars=None if evaluation.split is None else evaluation.split.working_avatars)
            for evaluations, person in sides for name, evaluation in evaluations.items()]


def judged_tables(run: Run) -> list[ScoredTable]:
    """The evaluations the verdict judges, what the Privacy page shows: each person table with everything about its
    people (one without children: its own rows); one table's own. A table alone beside its person view is not
    attacked, and a table of events is not people (a helper's pass: their views said "not assessed" for a choice
    made, and "real people" of stays)."""
    judged, persons = person_verdicts(run), getattr(run.evaluation, "persons", {})
    return [scored for scored in scored_tables(run) if scored.table_name in judged
            and (scored.person or scored.table_name not in persons)]


def people(run: Run, scored: ScoredTable) -> pd.DataFrame | None:
    """Every original of ``scored`` the privacy metrics score, in their order (the rows of who is most exposed);
    None when its rows are not people. Built when asked: a copy of the originals' columns scored."""
    if isinstance(run, GenerationRun):
        assert scored.originals is not None  # one table's working originals (see scored_tables)
        return scored.originals[attacked_columns(run)]
    split = scored.evaluation.split
    return split.originals if scored.individual and split is not None else None


def attacked_columns(run: Run) -> list[str]:
    """The columns an attacker may know or want: one table's scored columns (its identifiers apart), or those of
    each person table with everything about its people."""
    if isinstance(run, GenerationRun):
        return [name for name in run.avatarizer.kinds_ if name not in run.avatarizer.identifier_columns_]
    return sorted({column for name in run.verdict.persons
                   for column in person_evaluation(run.evaluation, name).kinds})


def exposure_latent(run: Run, scored: ScoredTable) -> LatentView | None:
    """The people of ``scored`` and every avatar on the first axes of a projection fitted on them, for the map of who
    is most exposed: one table's from its run; a person table's of linked tables (each person with everything about
    them) computed here, the levels of :func:`~core.workflows.exposure.exposure_levels` indexing the same people."""
    if scored.latent is not None or isinstance(run, GenerationRun):
        return scored.latent
    split = scored.evaluation.split
    if not scored.individual or split is None:
        return None
    return latent_of(split.originals, split.avatars, scored.evaluation.kinds, run.fitted.seed_)


def avatarizers(run: Run) -> dict[str, Avatarizer]:
    """Each table's fitted avatarizer (a time series has none: its measures are rebuilt from its persons')."""
    return {run.table_name: run.avatarizer} if isinstance(run, GenerationRun) else run.fitted.avatarizers_


def person_verdicts(run: Run) -> dict[str, Verdict]:
    """Each person table's verdict (one table: its own), with the fix checked for it."""
    if isinstance(run, GenerationRun):
        return {run.table_name: verdict_of_run(run)}
    return run.verdict.persons


def ready(run: Run) -> bool:
    """Whether the run's avatars can be shared: every person table ready (and every link holding)."""
    return run.verdict.ready if isinstance(run, LinkedRun) else verdict_of_run(run).ready


def with_fix(run: Run, table: str) -> Run:
    """The run the fix of ``table``'s verdict made when it was checked (one click applies it, nothing made again)."""
    return applied_fix(run) if isinstance(run, GenerationRun) else applied_linked_fix(run, table)


def knowledge_of(run: Run) -> Knowledge:
    """What the run's attacker was assumed to know and want."""
    return run.plan.knowledge if isinstance(run, GenerationRun) else run.knowledge


def held_out(run: Run) -> bool:
    """Whether real people were kept apart as a holdout (the avatars then stand for half of them)."""
    return run.evaluation.holdout is Holdout.REAL if isinstance(run, GenerationRun) else run.held_out


def rescored_run(run: Run, knowledge: Knowledge, frames: Mapping[str, pd.DataFrame], progress: Progress = None
                 ) -> Run:
    """``run`` scored again for another attacker (the avatars do not change), judged, a fix checked on the
    originals ``frames`` when a target is missed, the analyses it held kept."""
    if isinstance(run, GenerationRun):
        return rescored(run, replace(run.plan, knowledge=knowledge), frames[run.table_name], progress)
    return rescored_linked(run, knowledge, frames, progress)


def every_row(run: Run, frames: Mapping[str, pd.DataFrame], progress: Progress = None) -> Run:
    """The avatars of every row made with ``run``'s settings (no holdout): the ones to share, their privacy then
    measured on every person."""
    parameters = replace(run.parameters, holdout=False)
    if isinstance(run, GenerationRun):
        return generate_judged(frames[run.table_name], run.plan, parameters, table_name=run.table_name,
                               fingerprint=run.fingerprint, progress=progress)
    return generate_linked(run.dataset, frames, parameters, knowledge=run.knowledge, fingerprint=run.fingerprint,
                           progress=progress)
