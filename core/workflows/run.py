"""One table from avatarization to judgment, as the dashboard and the HTML report see it: settings in, avatars,
metrics and verdict out.

Kept free of Streamlit: the pages collect a :class:`~core.workflows.plan.ColumnPlan` and the engine's
:class:`~core.engine.parameters.Parameters`, call :func:`generate_judged` once per submitted form, and draw figures
from the returned :class:`GenerationRun`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from core.dataset import Role, Table
from core.dataset.relations import Relation
from core.engine.dataset_avatarizer import avatarized_table
from core.engine.kept_relations import KeptRelations
from core.engine.methods import Avatar, method_of
from core.engine.parameters import Parameters
from core.engine.pipeline import VARIANT_PARAMETERS, Avatarizer, Variants
from core.engine.schema import drop_columns
from core.engine.split import Holdout
from core.engine.stages import type_table
from core.i18n import N_, _, number
from core.metrics.attack import Knowledge
from core.metrics.evaluation import Evaluation, completed, evaluate_avatarization
from core.workflows.latent import LatentView, latent_view
from core.workflows.plan import ColumnPlan
from core.workflows.release import Release
from core.workflows.runs import Run, ScoredTable
from core.workflows.verdict import (
    SEARCH_SIGNAL,
    Progress,
    Remade,
    Rerun,
    Verdict,
    checked_verdict,
    largest_k_tried,
    search_budget,
    search_progress,
    verdict_of,
    with_analyses,
)

GENERATION_SHARE = 0.7  # of the progress bar; the metrics take the rest


@dataclass(frozen=True)
class GenerationRun(Run):
    """One table's run: its avatars, their metrics and (once judged) its verdict, never changed once built (its
    verdict and whole time given by a copy: :func:`judged`, :func:`generate_judged`)."""

    table_name: str
    fingerprint: str
    parameters: Parameters  # as chosen; the table's description apart (see :func:`build_avatarizer`)
    table: Table  # as described: its columns' roles, kinds and weights, its keys
    knowledge: Knowledge
    avatarizer: Avatarizer
    evaluation: Evaluation
    latent: LatentView | None
    elapsed_s: float  # the whole: the avatars, their metrics and the fix search (see made_s)
    verdict: Verdict | None = None  # given by :func:`judged`
    made_on: dt.datetime = field(default_factory=dt.datetime.now, compare=False)
    release: Release = field(default_factory=Release)

    @property
    def plan(self) -> ColumnPlan:
        """The table as described and the attacker's knowledge, as the fix search varies them."""
        return ColumnPlan(self.table, self.knowledge)

    @property
    def avatars(self) -> pd.DataFrame:
        """The shuffled avatars: the table to share."""
        return self.avatarizer.avatars_

    @property
    def table_verdict(self) -> Verdict:
        """The run's verdict: the one :func:`judged` set, else the one its evaluation gives (no fix searched)."""
        return self.verdict or verdict_of(self.evaluation)

    @property
    def person_verdicts(self) -> dict[str, Verdict]:
        return {self.table_name: self.table_verdict}

    @property
    def searched_s(self) -> float:
        """The seconds the fix search took (0 when none ran, nor a verdict was given)."""
        return self.verdict.search_seconds if self.verdict is not None and self.verdict.searched else 0.0

    @property
    def held_out(self) -> bool:
        return self.evaluation.holdout is Holdout.REAL

    @property
    def avatarizers(self) -> dict[str, Avatarizer]:
        return {self.table_name: self.avatarizer}

    @property
    def attacked_columns(self) -> list[str]:
        return scored_columns(self.avatarizer)

    def attacker_for(self, knowledge: Knowledge) -> Knowledge:
        return self.release.attacker(knowledge, self.attacked_columns)

    def scored_tables(self) -> list[ScoredTable]:
        working = self.avatarizer.working_data_
        assert working is not None  # a scored run's fit keeps its originals (never low_memory)
        return [ScoredTable(self.table_name, self.evaluation, person=True, key="", individual=True, originals=working,
                            avatars=self.avatars, latent=self.latent)]

    def people(self, scored: ScoredTable) -> pd.DataFrame | None:
        """The working originals' scored columns: a copy, built when asked."""
        assert scored.originals is not None  # one table's working originals (see scored_tables)
        return scored.originals[self.attacked_columns]

    def exposure_latent(self, scored: ScoredTable) -> LatentView | None:
        return scored.latent

    def with_fix(self, table: str) -> GenerationRun:
        """The run the fix made when it was checked (issue 46: nothing is made again): its avatars, metrics and
        verdict; the analyses run on this run are not carried over (other avatars)."""
        verdict = self.table_verdict
        assert verdict.fix is not None  # judged, with a fix to apply
        fix = verdict.fix
        assert isinstance(fix.made, Avatarizer)  # a fix meets every target: what made it is kept (FixSearch._attempt)
        evaluation = completed(fix.evaluation, fix.made.relations_)  # the signal the search did not read
        return GenerationRun(table_name=self.table_name, fingerprint=self.fingerprint, parameters=fix.parameters,
                             table=fix.plan.table, knowledge=fix.plan.knowledge, avatarizer=fix.made,
                             evaluation=evaluation, latent=latent_view(fix.made), elapsed_s=fix.seconds,
                             verdict=verdict_of(evaluation), release=self.release)

    def rescored(self, knowledge: Knowledge, frames: Mapping[str, pd.DataFrame], progress: Progress | None = None,
                 search: bool = True) -> GenerationRun:
        report = progress or (lambda step, share: None)
        report(_("Running the attacks"), 0.1)
        knowledge = self.attacker_for(knowledge)
        evaluation = with_analyses(evaluate_avatarization(self.avatarizer, self.evaluation.spaces,
                                                          knowledge=knowledge), self.evaluation)
        report(_("Checking whether the avatars can be shared"), 0.5)
        again = judged(replace(self, knowledge=knowledge, evaluation=evaluation, verdict=None, elapsed_s=self.made_s),
                       lambda: frames[self.table_name], search, search_progress(report, 0.5))
        report(_("Done"), 1.0)
        return again

    def with_fix_search(self, frames: Mapping[str, pd.DataFrame], progress: Progress | None = None) -> GenerationRun:
        return judged(self, lambda: frames[self.table_name],
                      progress=None if progress is None else search_progress(progress, 0.0))

    def every_row(self, frames: Mapping[str, pd.DataFrame], progress: Progress | None = None) -> GenerationRun:
        return generate_judged(frames[self.table_name], self.plan, replace(self.parameters, holdout=False),
                               table_name=self.table_name, fingerprint=self.fingerprint, progress=progress,
                               release=self.release)

    def short_summary(self) -> str:
        return _("Avatars: {settings}, seed {seed}").format(settings=self.avatarizer.method_.describe(),
                                                            seed=self.avatarizer.seed_)

    def made_sentence(self) -> str:
        avatarizer, working = self.avatarizer, self.avatarizer.working_data_
        assert working is not None  # a scored run's fit keeps its originals (never low_memory)
        n_avatars, n_working = len(avatarizer.avatars_), len(working)
        values = dict(avatars=number(n_avatars, ","), table=self.table_name, working=number(n_working, ","),
                      settings=avatarizer.method_.describe(), seed=avatarizer.seed_, seconds=number(self.made_s, ".1f"))
        if avatarizer.holdout_ is Holdout.REAL:
            holdout = avatarizer.holdout_data_
            assert holdout is not None  # a real holdout, kept by the fit
            return _(
                "{avatars} avatars of {table} made from {working} of the {total} rows "
                "(the other half is kept apart as the holdout the metrics compare with) with {settings}, "
                "seed {seed}, and measured in {seconds} s."
            ).format(total=number(n_working + len(holdout), ","), **values)
        return _(
            "{avatars} avatars of {table} made from all {working} rows (the metrics draw an approximate holdout: "
            "half of the originals) with {settings}, seed {seed}, and measured in {seconds} s."
        ).format(**values)


def data_fingerprint(data: bytes) -> str:
    """The SHA-256 of the input file, so that a report names the exact data it describes."""
    return hashlib.sha256(data).hexdigest()


def file_fingerprint(paths: Sequence[Path]) -> str:
    """:func:`data_fingerprint` of the files at ``paths`` read one after the other (linked tables: in their schema's
    order), by pieces: a large file is never held whole."""
    digest = hashlib.sha256()
    for path in paths:
        with path.open("rb") as stream:
            while piece := stream.read(1 << 20):
                digest.update(piece)
    return digest.hexdigest()


def replace_method(parameters: Parameters, method: str, value: float, mechanism: str) -> Parameters:
    """``parameters`` with another method (its ``name``) and main parameter (k or epsilon)."""
    if method == Avatar.name:
        return replace(parameters, k=int(value), fast_dp_epsilon=None)
    return parameters.as_fast_dp(float(value), mechanism)


def describe(parameters: Parameters) -> str:
    """The method and its main parameter, in words (``Avatar, k = 10``)."""
    return method_of(parameters).describe()


def build_avatarizer(plan: ColumnPlan, parameters: Parameters) -> Avatarizer:
    """The :class:`Avatarizer` of ``plan``'s table with ``parameters`` (see
    :meth:`~core.engine.parameters.Parameters.for_table`; dropped columns are removed beforehand)."""
    return Avatarizer(parameters.for_table(plan.table))


def fitted(frame: pd.DataFrame, plan: ColumnPlan, parameters: Parameters, *,
           progress: Callable[[str, float], None] | None = None, dropping: str | None = None) -> Avatarizer:
    """The avatars of ``frame`` as ``plan`` describes its table: its dropped columns left out (``dropping`` names
    them in a message), its keys decided before any kind."""
    return avatarized_table(frame, plan.table, parameters, where=dropping or _("The columns to drop"),
                            progress=progress)


@dataclass(frozen=True)
class TableRelations:
    """The relations a table shows and those its run keeps (:mod:`core.dataset.relations`)."""

    found: tuple[Relation, ...]  # exact on the originals, between the columns that take part in the synthesis
    kept: tuple[Relation, ...]  # as the table asks: those found but the ignored ones, with the declared ones


def table_relations(frame: pd.DataFrame, table: Table) -> TableRelations:
    """The relations of ``frame`` as ``table`` describes its columns (its dropped ones left out, its kinds, keys and
    columns set apart as a run takes them); a declared relation that cannot be kept raises an InputError."""
    kept = drop_columns(frame, table.with_role(Role.DROPPED), _("The columns to drop"))
    typed = type_table(kept, Parameters().for_table(table), table.keys, relations=())
    columns = (typed.frame, typed.typing.kinds, typed.typing.set_apart)
    return TableRelations(KeptRelations.of(*columns).relations, KeptRelations.of(*columns, table.relations).relations)


def parameters_variant(current: Parameters, new: Parameters) -> dict[str, object] | None:
    """The parameters ``new`` changes from ``current``, when each of them can vary from one preparation (the
    method's, ``ncp``: :data:`~core.engine.pipeline.VARIANT_PARAMETERS`), else None."""
    before, after = (build_avatarizer(ColumnPlan(), parameters).get_params() for parameters in (current, new))
    changed = {name: value for name, value in after.items() if before[name] != value}
    return changed if set(changed) <= set(VARIANT_PARAMETERS) else None


def generate(
    frame: pd.DataFrame,
    plan: ColumnPlan,
    parameters: Parameters,
    *,
    table_name: str,
    fingerprint: str,
    progress: Callable[[str, float], None] | None = None,
    release: Release = Release(),
) -> GenerationRun:
    """Avatarize ``frame`` as planned and score the avatars with every metric, for ``release`` (its recipient
    sets the attacker)."""
    start = time.perf_counter()
    report = progress or (lambda step, share: None)
    avatarizer = fitted(frame, plan, parameters,
                        progress=lambda step, share: report(_(_STEP_LABELS[step]), share * GENERATION_SHARE))
    report(_("Measuring utility and privacy"), GENERATION_SHARE)
    run = scored_run(avatarizer, plan, parameters, table_name=table_name, fingerprint=fingerprint, start=start,
                     progress=lambda: report(_("Preparing the figures"), 0.97), release=release)
    report(_("Done"), 1.0)
    return run


def scored_run(
    avatarizer: Avatarizer,
    plan: ColumnPlan,
    parameters: Parameters,
    *,
    table_name: str,
    fingerprint: str,
    start: float,
    with_latent: bool = True,
    progress: Callable[[], None] | None = None,
    release: Release = Release(),
) -> GenerationRun:
    """The :class:`GenerationRun` of a fitted ``avatarizer``: every metric and (``with_latent``) the latent view;
    ``start`` is when the work began (``time.perf_counter``). ``progress`` is told when the metrics are done. The
    attacks assume what ``release``'s recipient implies (:meth:`~core.workflows.release.Release.attacker`)."""
    plan = replace(plan, knowledge=release.attacker(plan.knowledge, scored_columns(avatarizer)))
    evaluation = evaluate_avatarization(avatarizer, knowledge=plan.knowledge)
    if progress is not None:
        progress()
    return GenerationRun(
        table_name=table_name, fingerprint=fingerprint, parameters=parameters, table=plan.table, knowledge=plan.knowledge,
        avatarizer=avatarizer,
        evaluation=evaluation, latent=latent_view(avatarizer) if with_latent else None,
        elapsed_s=time.perf_counter() - start, release=release,
    )


def scored_columns(avatarizer: Avatarizer) -> list[str]:
    """The columns a fitted ``avatarizer``'s metrics score that an attacker may know or want: its identifiers
    apart (they hold new values in the avatars)."""
    return [name for name in avatarizer.kinds_ if name not in avatarizer.identifier_columns_]


_STEP_LABELS = {
    "typing": N_("Reading the column types"),
    "encoding and imputation": N_("Handling missing values"),
    "projection": N_("Projecting into the latent space"),
    "synthesis": N_("Generating the avatars"),
    "decoding": N_("Bringing the avatars back to the original columns"),
}


def shared_rerun(run: GenerationRun, table: Callable[[], pd.DataFrame], largest_k: int) -> Rerun:
    """Re-runs of ``run``'s table that share its preparation: another method or ``ncp`` starts from the run's own
    typing, split, encoding and projection (:class:`~core.engine.pipeline.Variants`, the neighbours searched once
    per ``ncp``, never beyond ``largest_k``, the largest the caller will ask), scored against the same halves with
    the metric spaces fitted once; another column plan needs a fresh fit of the table (``table()``, read only
    then). Each is scored on what the fix search reads (:data:`~core.workflows.verdict.SEARCH_SIGNAL`: the signal it
    ranks by; the privacy metrics up to the first that misses its target, cheapest first); the rest when a fix is
    applied (:meth:`GenerationRun.with_fix`) or when no setting is enough (the verdict's sentences then read them)."""
    variants: list[Variants] = []
    spaces = run.evaluation.spaces
    frames: list[pd.DataFrame] = []

    def rerun(parameters: Parameters, plan: ColumnPlan) -> Remade:
        variant = parameters_variant(run.parameters, parameters)
        if plan == run.plan and variant is not None:
            variants[:] = variants or [Variants(run.avatarizer, largest_k=largest_k)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # what the run said about its columns and k is not said again
                variant_fit = variants[0].fit(variant)
            return Remade(evaluate_avatarization(variant_fit, spaces, plan.knowledge, SEARCH_SIGNAL, until_failing=True),
                          variant_fit)
        frames[:] = frames or [table()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fitted_table = fitted(frames[0], plan, parameters)
        return Remade(evaluate_avatarization(fitted_table, knowledge=plan.knowledge, signal_names=SEARCH_SIGNAL,
                                             until_failing=True), fitted_table)

    return rerun


def judged(run: GenerationRun, table: Callable[[], pd.DataFrame], search: bool = True,
           progress: Progress | None = None) -> GenerationRun:
    """A copy of ``run`` with its verdict; when a target is missed (and ``search``), a fix checked by re-running on the
    table the run was made from (see :func:`shared_rerun`), with the budget of :func:`search_budget`."""
    budget = search_budget(len(run.avatars))
    rerun = shared_rerun(run, table, largest_k_tried(run.parameters.k, len(run.avatars), budget))
    verdict = checked_verdict(run.evaluation, run.parameters, run.plan, len(run.avatars), rerun, progress,
                              budget, table_ncp=run.avatarizer.ncp_) if search else verdict_of(run.evaluation)
    return replace(run, verdict=verdict, elapsed_s=run.made_s + (verdict.search_seconds if verdict.searched else 0.0))


def generate_judged(frame: pd.DataFrame, plan: ColumnPlan, parameters: Parameters, *, table_name: str, fingerprint: str,
                    progress: Callable[[str, float], None] | None = None, release: Release = Release()
                    ) -> GenerationRun:
    """:func:`~core.workflows.run.generate`, then the verdict, with a fix checked when a target is missed: each
    setting tried is a step of the progress bar, with its name; the run's time is the whole."""
    report = progress or (lambda step, share: None)
    start = time.perf_counter()
    run = generate(frame, plan, parameters, table_name=table_name, fingerprint=fingerprint,
                   progress=lambda step, share: report(step, 0.75 * share), release=release)
    report(_("Checking whether the avatars can be shared"), 0.75)
    run = judged(run, lambda: frame, progress=search_progress(report, 0.75))
    report(_("Done"), 1.0)
    return replace(run, elapsed_s=time.perf_counter() - start)
