"""Linked tables from avatarization to judgment (SPEC 12): the avatars of every table, their metrics and one
verdict covering each individual-level table with its descendants."""

from __future__ import annotations

import datetime as dt
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from core.dataset import Dataset, Kind, Link, LinkMethod, Table
from core.engine.dataset_avatarizer import DatasetAvatarizer, check_methods
from core.engine.parameters import Parameters
from core.engine.pipeline import Avatarizer
from core.engine.series_tables import series_kinds
from core.errors import InputError
from core.i18n import _, number
from core.metrics.aggregates import number_name
from core.metrics.analysis.mixed_model import MixedModelResult
from core.metrics.attack import Knowledge
from core.metrics.evaluation import Evaluation
from core.metrics.linked_evaluation import LinkedEvaluation, attacked_tables, evaluate_linked, person_columns
from core.metrics.links.join import PARENT_COLUMN
from core.metrics.series.series_table import series_mixed_model
from core.workflows.latent import LatentView, latent_of
from core.workflows.plan import ColumnPlan
from core.workflows.release import Release
from core.workflows.runs import Run, ScoredTable
from core.workflows.verdict import (
    NOT_READY,
    READY,
    Progress,
    Remade,
    Rerun,
    Verdict,
    checked_verdict,
    fallback_parameters,
    search_progress,
    LINKED_SEARCH_ROWS,
    search_budget,
    verdict_of,
    with_analyses,
)

if TYPE_CHECKING:
    from core.metrics.analysis.request import AnalysisRequest

FIX_SETTINGS = (*Parameters.names("method"), "ncp")  # what a fix may change in a table's own parameters


@dataclass(frozen=True)
class LinkedVerdict:
    """Per individual-level table, the verdict on its rows with everything about them (its descendants'
    aggregates; a table without children: its own rows), with the fix checked for it when it misses a target (see
    :func:`judged_linked`); the links whose foreign keys do not all resolve. Ready when every person table is and
    every link holds."""

    persons: dict[str, Verdict]
    broken_links: list[str]

    @property
    def ready(self) -> bool:
        return not self.broken_links and all(verdict.ready for verdict in self.persons.values())

    @property
    def status(self) -> str:
        if self.broken_links or any(verdict.status == NOT_READY for verdict in self.persons.values()):
            return NOT_READY
        return READY if self.ready else next(verdict.status for verdict in self.persons.values() if not verdict.ready)


@dataclass(frozen=True)
class LinkedRun(Run):
    """One generation of linked tables (the dashboard's): the fitted tables, their metrics and their verdict."""

    fitted: DatasetAvatarizer
    evaluation: LinkedEvaluation
    verdict: LinkedVerdict
    parameters: Parameters  # the run's, each table's own in the dataset
    knowledge: Knowledge
    fingerprint: str
    elapsed_s: float
    made_on: dt.datetime = field(default_factory=dt.datetime.now, compare=False)
    release: Release = field(default_factory=Release)

    @property
    def held_out(self) -> bool:
        """Whether a holdout of whole families was kept apart (the avatars then stand for half of the people)."""
        return any(frame is not None and len(frame) for frame in self.fitted.holdout_data_.values())

    @property
    def dataset(self) -> Dataset:
        return self.fitted.dataset_

    @property
    def person_verdicts(self) -> dict[str, Verdict]:
        return self.verdict.persons

    @property
    def ready(self) -> bool:
        """Whether the avatars can be shared: every person table ready and every link holding."""
        return self.verdict.ready

    @property
    def avatarizers(self) -> dict[str, Avatarizer]:
        return self.fitted.avatarizers_

    @property
    def attacked_columns(self) -> list[str]:
        return sorted({column for name in self.verdict.persons
                       for column in person_evaluation(self.evaluation, name).kinds})

    def attacker_for(self, knowledge: Knowledge) -> Knowledge:
        return linked_attacker(self.release, self.dataset, self.fitted.working_data_, knowledge)

    def scored_tables(self) -> list[ScoredTable]:
        sides = [(self.evaluation.persons, True), (self.evaluation.tables, False)]
        return [ScoredTable(name, evaluation, person=person, key=f"{'person' if person else 'table'}:{name}",
                            individual=person or self.dataset.is_individual_level(name),
                            originals=None if evaluation.split is None else evaluation.split.working,
                            avatars=None if evaluation.split is None else evaluation.split.working_avatars)
                for evaluations, person in sides for name, evaluation in evaluations.items()]

    def people(self, scored: ScoredTable) -> pd.DataFrame | None:
        split = scored.evaluation.split
        return split.originals if scored.individual and split is not None else None

    def exposure_latent(self, scored: ScoredTable) -> LatentView | None:
        """Each person with everything about them and every avatar, computed here."""
        split = scored.evaluation.split
        if not scored.individual or split is None:
            return None
        return latent_of(split.originals, split.avatars, scored.evaluation.kinds, self.fitted.seed_)

    def with_fix(self, table: str) -> LinkedRun:
        """The linked run the fix of ``table``'s verdict made when it was checked: every table's avatars, metrics and
        verdict; the analyses and trends run on this run are not carried over (other avatars)."""
        fix = self.verdict.persons[table].fix
        assert fix is not None and isinstance(fix.made, LinkedRun)  # a fix meets every target: its run is kept
        return fix.made

    def rescored(self, knowledge: Knowledge, frames: Mapping[str, pd.DataFrame], progress: Progress | None = None,
                 search: bool = True) -> LinkedRun:
        """Each person table that misses a target has a fix checked (:func:`judged_linked`; ``search`` off: later,
        :meth:`with_fix_search`); the analyses and trends held are kept."""
        report = progress or (lambda step, share: None)
        report(_("Running the attacks"), 0.1)
        knowledge = self.attacker_for(knowledge)
        earlier = self.evaluation
        evaluation = replace(scored(self.fitted, knowledge), trends=dict(earlier.trends))  # what was run stays
        for side, held in ((evaluation.tables, earlier.tables), (evaluation.persons, earlier.persons)):
            for name, scored_table in side.items():
                if name in held:
                    with_analyses(scored_table, held[name])
        report(_("Checking whether the avatars can be shared"), 0.5)
        scored_again = replace(self, evaluation=evaluation, verdict=linked_verdict(self.dataset, evaluation),
                               knowledge=knowledge, elapsed_s=self.made_s)  # the earlier search's seconds left out
        again = judged_linked(scored_again, frames, progress=search_progress(report, 0.5)) if search else scored_again
        report(_("Done"), 1.0)
        return replace(again, elapsed_s=scored_again.elapsed_s + again.searched_s)

    def with_fix_search(self, frames: Mapping[str, pd.DataFrame], progress: Progress | None = None) -> LinkedRun:
        again = judged_linked(self, frames, progress=None if progress is None else search_progress(progress, 0.0))
        return replace(again, elapsed_s=self.made_s + again.searched_s)

    def every_row(self, frames: Mapping[str, pd.DataFrame], progress: Progress | None = None) -> LinkedRun:
        return generate_linked(self.dataset, frames, replace(self.parameters, holdout=False),
                               knowledge=self.knowledge, fingerprint=self.fingerprint, progress=progress,
                               release=self.release)

    def short_summary(self) -> str:
        methods = {avatarizer.method_.describe() for avatarizer in self.fitted.avatarizers_.values()}
        return _("Avatars of {count} tables: {settings}, seed {seed}").format(
            count=number(len(self.fitted.avatars_)), settings="; ".join(sorted(methods)), seed=self.fitted.seed_)

    def made_sentence(self) -> str:
        """Each table's avatars and method, the holdout, the seed, the time."""
        tables = ", ".join(_("{avatars} of {table} ({settings})").format(
            avatars=number(len(self.fitted.avatars_[name]), ","), table=name,
            settings=_("time series") if self.dataset.is_series(name) else
            self.fitted.avatarizers_[name].method_.describe()) for name in self.dataset.top_down())
        held = sum(len(frame) for frame in self.fitted.holdout_data_.values() if frame is not None)
        values = {"tables": tables, "seed": self.fitted.seed_, "seconds": number(self.made_s, ".1f"),
                  "held": number(held, ",")}
        if held:
            return _("Avatars made: {tables}; {held} rows kept apart as the holdout, whole families, that the "
                     "metrics compare with; seed {seed}, in {seconds} s.").format(**values)
        return _("Avatars made: {tables}, from every row (the metrics draw halves of the families); seed "
                 "{seed}, in {seconds} s.").format(**values)

    def parameters_json(self) -> dict[str, Any]:
        """The run's parameters as the JSON gives them (SPEC 12): the seed, each table's, each link's method, the
        timings."""
        return linked_parameters(self.fitted)

    def sensitive_links(self) -> list[str]:
        """The links made by ``original_order``: the real family structure kept (sensitive)."""
        return [link.describe() for link in self.dataset.links if link.method is LinkMethod.ORIGINAL_ORDER]


def generate_linked(dataset: Dataset, frames: Mapping[str, pd.DataFrame], parameters: Parameters, *,
                    knowledge: Knowledge = Knowledge(), fingerprint: str = "", search: bool = True,
                    progress: Callable[[str, float], None] | None = None, release: Release = Release()) -> LinkedRun:
    """Linked tables avatarized (:class:`~core.engine.dataset_avatarizer.DatasetAvatarizer`), scored with the
    attacker's ``knowledge`` and judged, with a fix checked for each person table that misses a target (unless
    ``search`` is off; see :func:`judged_linked`), the progress told at each table, at the scoring and at each
    setting tried."""
    report = progress or (lambda step, share: None)
    start = time.perf_counter()
    fitted = DatasetAvatarizer(dataset, parameters).fit(frames, progress=lambda step, share: report(step, 0.6 * share))
    report(_("Measuring the avatars of every table and link"), 0.6)
    knowledge = linked_attacker(release, dataset, frames, knowledge)
    evaluation = scored(fitted, knowledge)
    run = LinkedRun(fitted, evaluation, linked_verdict(fitted.dataset_, evaluation), parameters, knowledge,
                    fingerprint, time.perf_counter() - start, release=release)
    if search:
        report(_("Checking whether the avatars can be shared"), 0.75)
        run = judged_linked(run, frames, progress=search_progress(report, 0.75))
    report(_("Done"), 1.0)
    return replace(run, elapsed_s=time.perf_counter() - start)


def judged_linked(run: LinkedRun, frames: Mapping[str, pd.DataFrame], progress: Progress | None = None) -> LinkedRun:
    """A copy of ``run`` whose person tables that miss a target each have the fix
    :class:`~core.workflows.verdict.FixSearch` finds on that table's own settings (its k, ncp or epsilon, a column
    of its own set aside, AvatarFastDP unless it has time series), each setting checked by a re-run of the linked
    tables (:func:`linked_rerun`), within the budget of :func:`~core.workflows.verdict.search_budget` for the rows
    each setting makes again: every table's avatars, once per table (a setting costs a whole run: 13 settings on the
    clinical demo's three tables, 39 when they were counted once)."""
    rows = sum(len(avatars) for avatars in run.fitted.avatars_.values()) * len(run.fitted.avatars_)  # every table
    budget = search_budget(rows, LINKED_SEARCH_ROWS)  # re-run by each setting: counted once per table
    persons = dict(run.verdict.persons)
    for name, verdict in run.verdict.persons.items():
        if verdict.status != NOT_READY:
            continue
        table = run.dataset.tables[name]
        keys = {*table.keys, *(link.foreign_key for link in run.dataset.parent_links(name))}
        persons[name] = checked_verdict(
            verdict.evaluation, run.parameters.for_table(table), ColumnPlan(table, run.knowledge),
            len(run.fitted.avatars_[name]), linked_rerun(run, frames, name), progress, budget,
            settable=[column for column in frames[name].columns if column not in keys],
            fallback=takes_fast_dp(run.dataset, name, run.parameters), table=name, budget_rows=rows,
            table_ncp=run.fitted.avatarizers_[name].ncp_)
    return replace(run, verdict=replace(run.verdict, persons=persons))


def takes_fast_dp(dataset: Dataset, name: str, parameters: Parameters) -> bool:
    """Whether table ``name`` may switch to AvatarFastDP, the fix search's last resort: not the persons of a time
    series, nor a table an ``original_order`` link pairs (:func:`~core.engine.dataset_avatarizer.check_methods`)."""
    table = dataset.tables[name]
    effective = parameters.for_table(table)
    fast = with_setting(table, effective, fallback_parameters(effective))
    try:
        check_methods(dataset.with_table(fast), parameters)
    except InputError:
        return False
    return True


def linked_rerun(run: LinkedRun, frames: Mapping[str, pd.DataFrame], person: str) -> Rerun:
    """Re-runs of ``run`` with table ``person`` set as a fix tries it (its parameters, its columns' roles): every
    table made again with the run's seed and scored for the same attacker; what is judged is ``person``'s rows with
    everything about them, and the whole run is kept, to be applied as it is (:meth:`LinkedRun.with_fix`)."""
    effective = run.parameters.for_table(run.dataset.tables[person])
    defaults = replace(run.parameters, seed=run.fitted.seed_)

    def rerun(parameters: Parameters, plan: ColumnPlan) -> Remade:
        dataset = run.dataset.with_table(with_setting(plan.table, effective, parameters))
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # what the run said about its tables and keys is not said again
            fitted = DatasetAvatarizer(dataset, defaults).fit(frames)
        evaluation = scored(fitted, run.knowledge)
        remade = LinkedRun(fitted, evaluation, linked_verdict(fitted.dataset_, evaluation), defaults, run.knowledge,
                           run.fingerprint, time.perf_counter() - start, release=run.release)
        return Remade(person_evaluation(evaluation, person), remade)

    return rerun


def with_setting(table: Table, effective: Parameters, chosen: Parameters) -> Table:
    """``table`` with ``chosen``'s method settings (:data:`FIX_SETTINGS`) as its own where they differ from
    ``effective``, the parameters it had in the run (a value of None: its own one dropped, the run's default
    read)."""
    own = dict(table.parameters)
    for name in FIX_SETTINGS:
        value = getattr(chosen, name)
        if value != getattr(effective, name):
            if value is None:
                own.pop(name, None)
            else:
                own[name] = value
    return replace(table, parameters=own)


def person_evaluation(evaluation: LinkedEvaluation, name: str) -> Evaluation:
    """What the verdict of person table ``name`` judges: its rows with everything about them (its descendants'
    aggregates), or its own rows when it has no child."""
    return evaluation.persons.get(name) or evaluation.tables[name]


def linked_parameters(fitted: DatasetAvatarizer) -> dict[str, Any]:
    """A linked run's parameters as its JSON gives them: the seed, each table's own (its avatarizer's
    ``get_params``, where the columns its links add are not) with its method, each link's method, the timings."""
    series = {name: {parameter: getattr(fitted.parameters.for_table(fitted.dataset_.tables[name]), parameter)
                     for parameter in Parameters.names("series")} | {"method": "time_series"}
              for name in fitted.dataset_.tables if fitted.dataset_.is_series(name)}
    return {"seed": fitted.seed_,
            "tables": {name: {**avatarizer.get_params(), "method": avatarizer.method_.name}
                       for name, avatarizer in fitted.avatarizers_.items()} | series,
            "links": {link.describe(): link.method.value for link in fitted.dataset_.links},
            "timings_s": fitted.timings_s_}


def linked_attacker(release: Release, dataset: Dataset, frames: Mapping[str, pd.DataFrame],
                    knowledge: Knowledge) -> Knowledge:
    """What the attacks on linked tables assume, as ``release``'s recipient implies
    (:meth:`~core.workflows.release.Release.attacker`): open data, every column of the attacked person table (the
    one the variables named are in, else the first individual-level table) with everything about its people."""
    if not release.widens:  # the recipient keeps the user's choice
        return knowledge
    people = attacked_tables(dataset, frames, knowledge) or [
        name for name in dataset.tables if dataset.is_individual_level(name)]
    return release.attacker(knowledge, person_columns(dataset, frames, people[0])) if people else knowledge


def scored(fitted: DatasetAvatarizer, knowledge: Knowledge = Knowledge()) -> LinkedEvaluation:
    """The metrics of a fitted linked run, its avatars paired with their originals where the method pairs them;
    the attacker's ``knowledge`` as :func:`~core.metrics.linked_evaluation.evaluate_linked` takes it."""
    return evaluate_linked(fitted.dataset_, fitted.working_data_, fitted.holdout_data_, fitted.avatars_,
                           paired_orders={name: avatarizer.paired_order_
                                          for name, avatarizer in fitted.avatarizers_.items()},
                           seed=fitted.seed_, knowledge=knowledge)


def linked_verdict(dataset: Dataset, evaluation: LinkedEvaluation) -> LinkedVerdict:
    """The one verdict of linked tables (see :class:`LinkedVerdict`)."""
    persons = {name: verdict_of(person_evaluation(evaluation, name))
               for name in dataset.tables if dataset.is_individual_level(name)
               and (name in evaluation.persons or name in evaluation.tables)}
    broken = [link for link, metrics in evaluation.links.items() if metrics["referential_integrity"].passed is False]
    return LinkedVerdict(persons, broken)


def evaluated_files(dataset: Dataset, originals: Mapping[str, pd.DataFrame], avatars: Mapping[str, pd.DataFrame],
                    seed: int = 0, knowledge: Knowledge = Knowledge()) -> LinkedEvaluation:
    """The metrics of linked avatars made by another tool (SDV's HMA...): not paired, scored against halves of the
    originals' families."""
    return evaluate_linked(dataset, originals, dict.fromkeys(dataset.tables), avatars,
                           paired_orders=dict.fromkeys(dataset.tables), seed=seed, knowledge=knowledge)


TREND_OPTIONS = "value=NAME [group=NAME] [table=NAME]"


@dataclass(frozen=True)
class PersonAnalysis:
    """The analyses of SPEC section 9 on individual-level ``table``, each of its rows with everything about it (its
    descendants' aggregates as columns)."""

    table: str
    request: AnalysisRequest


def linked_analysis(dataset: Dataset, frames: Mapping[str, pd.DataFrame],
                    pairs: list[tuple[str, str]]) -> TrendRequest | PersonAnalysis:
    """What ``--analysis KEY=VALUE ...`` asks of linked tables, checked on the originals ``frames`` before any
    work: the trend of a time series (``table=`` a series, or ``value=`` and ``group=`` alone when the dataset has
    one), else the analyses of one table (SPEC 9) on an individual-level table with its descendants' aggregates
    (``table=`` it, needed when there are several). Each refusal one line."""
    from core.metrics.analysis.request import OPTIONS_HELP, AnalysisRequest  # the analyses' libraries when asked

    if sum(key == "table" for key, _value in pairs) > 1:
        raise InputError("--analysis table= is given twice: keep one.")
    known = {"table", "value", "group", *(field.name for field in fields(AnalysisRequest))}
    unknown = next((key for key, _value in pairs if key not in known), None)
    if unknown is not None:
        raise InputError(f"--analysis with --tables takes table=NAME with {OPTIONS_HELP}, or a series' "
                         f"{TREND_OPTIONS}; got '{unknown}='.")
    table = next((value.strip() for key, value in pairs if key == "table"), None)
    series = [link.child for link in dataset.links if link.method is LinkMethod.TIME_SERIES]
    people = [name for name in dataset.tables if dataset.is_individual_level(name)]
    if table in series or (table is None and series and {key for key, _value in pairs} <= {"value", "group"}):
        return checked_trend(dataset, frames, TrendRequest.from_options(pairs))
    if table is None and len(people) == 1:
        table = people[0]
    if table not in people:
        raise InputError(f"--analysis with --tables: name the table to analyse with table=NAME, an individual-level "
                         f"table ({', '.join(people)}) for the analyses of its people with everything about them "
                         f"({OPTIONS_HELP})" + (f", or a time series ({', '.join(series)}) for its trend "
                                                f"({TREND_OPTIONS})" if series else "") + ".")
    request = AnalysisRequest.from_options([(key, value) for key, value in pairs if key != "table"])
    keys = dict.fromkeys([*dataset.tables[table].keys, *(link.foreign_key for link in dataset.parent_links(table))],
                         "is a key of the table: the avatars get new keys of the same form, so no analysis can use it")
    try:
        return PersonAnalysis(table, request.checked(person_columns(dataset, frames, table), keys))
    except InputError as error:  # its columns are those of each person with everything about them: said so
        raise InputError(f"Table '{table}', each row with its descendants' aggregates (such as "
                         f"\"{next((number_name(link.child) for link in dataset.child_links(table)), 'stays: number')}"
                         f"\"): {error}") from None


@dataclass(frozen=True)
class TrendRequest:
    """The trend analysis of a time series (SPEC 13): its numeric ``value``, a ``group`` (a column of the series
    or of its person's, ``patients.treatment``) or none, and its series ``table`` (needed when there are several)."""

    value: str
    group: str | None = None
    table: str | None = None

    @classmethod
    def from_options(cls, pairs: list[tuple[str, str]]) -> TrendRequest:
        """The request of ``--analysis KEY=VALUE ...`` with linked tables; each refusal one line."""
        keys = [key for key, _value in pairs]
        unknown = next((key for key in keys if key not in ("value", "group", "table")), None)
        if unknown is not None or "value" not in keys:
            raise InputError(f"--analysis for the trend of a time series over time takes "
                             f"{TREND_OPTIONS}{f'; got {unknown}=' if unknown else ''}.")
        twice = next((key for position, key in enumerate(keys) if key in keys[:position]), None)
        if twice is not None:
            raise InputError(f"--analysis {twice}= is given twice: keep one.")
        return cls(**{key: value.strip() for key, value in pairs})


def analysed_linked(evaluation: LinkedEvaluation, dataset: Dataset, asked: TrendRequest | PersonAnalysis) -> None:
    """The analysis ``asked`` (:func:`linked_analysis`) run on ``evaluation``: a series' trend kept in its
    ``trends``, a person table's analyses in that table's evaluation (with everything about each person)."""
    if isinstance(asked, TrendRequest):
        analysed_trend(evaluation, dataset, asked)
        return
    from core.metrics.evaluation import analyse  # the analyses' libraries when asked

    analyse(person_evaluation(evaluation, asked.table), asked.request)


def series_link(dataset: Dataset, table: str | None = None) -> Link:
    """The time series link of ``table``, or the only one; refused in one line when there is none or it is not
    said which."""
    links = [link for link in dataset.links if link.method is LinkMethod.TIME_SERIES]
    chosen = [link for link in links if table is None or link.child == table]
    if not links:
        raise InputError(_("The trend analysis is for a time series, a table linked by time_series; this dataset "
                           "has none."))
    if not chosen or len(chosen) > 1:
        raise InputError(_("Name the time series whose trend to analyse (table=NAME): {tables}.").format(
            tables=", ".join(link.child for link in links)))
    return chosen[0]


def checked_trend(dataset: Dataset, frames: Mapping[str, pd.DataFrame], request: TrendRequest) -> TrendRequest:
    """``request`` with its series table named, its value a numeric column of the series and its group a column of
    the series or of its person's (``patients.treatment``), checked on the originals ``frames`` before any work."""
    link = series_link(dataset, request.table)
    table = dataset.tables[link.child]
    assert table.time is not None  # a series has its time column (see Dataset's checks of its links)
    keys = [column for column in (table.primary_key, link.foreign_key) if column]
    kinds = series_kinds(frames[link.child].drop(columns=keys), table.time, table.column_kinds,
                         _("Table '{table}'").format(table=link.child))
    numbers = [column for column, kind in kinds.items() if kind is Kind.NUMERIC and column != table.time]
    if request.value not in numbers:
        raise InputError(_("The trend analysis takes a numeric column of the series '{table}' ({columns}), got "
                           "'{value}'.").format(table=link.child, columns=", ".join(numbers) or "-",
                                                value=request.value))
    parent_keys = {dataset.tables[link.parent].primary_key, *(other.foreign_key
                                                              for other in dataset.parent_links(link.parent))}
    groups = [column for column in kinds if column not in (table.time, request.value)] + [
        PARENT_COLUMN.format(parent=link.parent, column=column) for column in frames[link.parent].columns
        if column not in parent_keys]
    if request.group is not None and request.group not in groups:
        raise InputError(_("The trend analysis' group must be a column of '{table}' or of its person ({parent}.name), "
                           "got '{group}'.").format(table=link.child, parent=link.parent, group=request.group))
    return replace(request, table=link.child)


def analysed_trend(evaluation: LinkedEvaluation, dataset: Dataset, request: TrendRequest) -> MixedModelResult:
    """The trend of ``request``'s series variable on the real persons, the avatars and the holdout (or halves of the
    persons) of ``evaluation``, kept in its ``trends`` (by its link) for the JSON, the report and the pages."""
    link = series_link(dataset, request.table)
    result = series_mixed_model(evaluation.series_views[link.describe()], request.value, request.group)
    evaluation.trends[link.describe()] = result
    return result
