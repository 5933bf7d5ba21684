"""One plain verdict on a set of avatars (SPEC section 6.3): ready to share or not, why, and the fix, checked.

**Ready to share** when every privacy target that can apply was assessed and is met; **meets every target
assessed** when nothing fails but some metric awaits the user's choice of variables (never the green "ready");
otherwise **not ready**, naming each criterion and metric that fails, and the fix computed for this run, checked by
re-running it (:func:`search_fix`): a setting that meets every target and keeps the signal, or, when none keeps it,
the one that keeps the most, with its cost in numbers.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from core.engine.pipeline import Variants
from core.i18n import N_, Message, Number, _
from core.metrics.criteria import PARTLY_ASSESSED
from core.metrics.evaluation import Evaluation, evaluate_avatarization
from core.metrics.result import MetricResult
from core.workflows.advice import EPSILON_STEPS, K_STEPS
from core.workflows.run import ColumnPlan, GenerationRun, Settings, evaluation_with, generate, settings_variant

READY, NOT_READY = "ready", "not ready"  # and PARTLY_ASSESSED, as a criterion can be
FALLBACK_EPSILON = 1.0
SMALLEST_NCP = 2
# How far a fix's signal may fall below the run's and still "keep the signal": about twice the seed-to-seed standard
# deviation of the avatars at a fixed holdout split, measured with 6 seeds on the demo, AIDS, Wage and birthwt
# tables (Hellinger Mean 0.2 to 0.7, 2.3 on birthwt's 95 rows; Correlation Difference Ratio 2 to 6 for Avatar, up to
# 15 for FastDP). Beyond, the fix is named with its cost in numbers.
SIGNAL_SPREAD = {"hellinger_mean": 1.5, "correlation_difference_ratio": 10.0}
Rerun = Callable[[Settings, ColumnPlan], Evaluation]
Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class Fix:
    """Settings that were re-run and scored: what to change (``instruction``), and the evaluation it reaches."""

    instruction: Message
    settings: Settings
    plan: ColumnPlan
    evaluation: Evaluation
    seconds: float = 0.0

    @property
    def ready(self) -> bool:
        return not failing_results(self.evaluation)

    def signal_change(self, current: Evaluation) -> dict[str, tuple[float, float]]:
        """Per signal metric of :data:`SIGNAL_SPREAD` that both runs measure: (the run's value, the fix's)."""
        return {name: (current.signal[name].value, self.evaluation.signal[name].value) for name in SIGNAL_SPREAD
                if name in current.signal and name in self.evaluation.signal
                and current.signal[name].value is not None and self.evaluation.signal[name].value is not None}

    def keeps_signal(self, current: Evaluation) -> bool:
        """No signal metric below the run's by more than its seed-to-seed spread."""
        return all(after >= before - SIGNAL_SPREAD[name] for name, (before, after) in self.signal_change(current).items())

    def signal(self) -> tuple[float, float]:
        """Hellinger Mean, then Correlation Difference Ratio (-1 where not measured): what ranks fixes."""
        values = [self.evaluation.signal[name].value if name in self.evaluation.signal else None
                  for name in SIGNAL_SPREAD]
        return tuple(-1.0 if value is None else value for value in values)


@dataclass(frozen=True)
class Verdict:
    """Ready, partly assessed or not; the failing metrics by criterion; the metrics not assessed (the attacks await
    the known and sensitive variables); the fix (None: ready already, not searched, or none found) and every setting
    tried with what it reached. The words are :mod:`core.presentation.verdict_text`'s."""

    status: str
    failing: dict[str, list[MetricResult]]
    not_assessed: list[MetricResult]
    fix: Fix | None = None
    tried: list[Fix] = field(default_factory=list)
    searched: bool = False  # whether fixes were looked for (never for avatars made elsewhere)
    search_seconds: float = 0.0
    evaluation: Evaluation | None = field(default=None, repr=False, compare=False)  # what it judges

    @property
    def ready(self) -> bool:
        return self.status == READY


def failing_results(evaluation: Evaluation) -> dict[str, list[MetricResult]]:
    """The metrics that miss their target, by criterion."""
    return {criterion: group.failing for criterion, group in evaluation.criteria().items() if group.failing}


def verdict_of_run(run: GenerationRun) -> Verdict:
    """The run's verdict: the one :func:`judged` set, else the one its evaluation gives (no fix searched)."""
    return run.verdict or verdict_of(run.evaluation)


def verdict_of(evaluation: Evaluation) -> Verdict:
    """The verdict without a fix (see :func:`search_fix`)."""
    failing = failing_results(evaluation)
    awaiting = [result for group in evaluation.criteria().values() for result in group.awaiting]
    status = NOT_READY if failing else PARTLY_ASSESSED if awaiting else READY
    return Verdict(status=status, failing=failing, not_assessed=awaiting, evaluation=evaluation)


def _smallest_passing(candidates: Sequence, passes: Callable[[object], bool]) -> object | None:
    """The first of ``candidates`` (ordered from the least change to the most) that ``passes``, by bisection:
    protection grows along the list, so about log2(len) settings are tried instead of every one."""
    low, high, best = 0, len(candidates) - 1, None
    while low <= high:
        middle = (low + high) // 2
        if passes(candidates[middle]):
            best, high = candidates[middle], middle - 1
        else:
            low = middle + 1
    return best


def search_fix(evaluation: Evaluation, settings: Settings, plan: ColumnPlan, n_avatarized: int, rerun: Rerun,
               progress: Progress | None = None) -> tuple[Fix | None, list[Fix]]:
    """The fix of a run that misses a target, and every setting tried (SPEC 6.3, revised).

    Tried in turn, each re-run and scored by ``rerun``: the column that avatars copy from their own original set
    aside (column direct match protection failing); the smallest ``k`` above the run's (the largest epsilon below
    it) that meets every target, by bisection over :data:`~core.workflows.advice.K_STEPS`
    (:data:`~core.workflows.advice.EPSILON_STEPS`); for Avatar, when no ``k`` found keeps the signal, the largest
    smaller ``ncp`` at the run's ``k`` that meets every target (fewer axes to find neighbours on: neighbourhoods
    of people alike on what matters most); for Avatar, last, AvatarFastDP, when no Avatar setting meets every
    target. Of the settings that meet every target, those that keep the signal (:meth:`Fix.keeps_signal`) come
    first, then the one with the best Hellinger Mean and Correlation Difference Ratio.
    """
    tried: dict[str, Fix] = {}
    report = progress or (lambda step, share: None)

    def attempt(instruction: Message, new_settings: Settings, new_plan: ColumnPlan = plan) -> Fix:
        key = repr((new_settings, new_plan))
        if key not in tried:
            report(_("Checking a fix: {instruction}").format(instruction=_(instruction)), len(tried))
            start = time.perf_counter()
            tried[key] = Fix(instruction, new_settings, new_plan, rerun(new_settings, new_plan),
                             time.perf_counter() - start)
        return tried[key]

    column = evaluation.privacy.get("column_direct_match_protection")
    if column is not None and column.passed is False and column.breakdown.get("per_variable"):
        weakest = min(column.breakdown["per_variable"], key=lambda row: row["protection"])["variable"]
        if weakest not in plan.excluded:
            attempt(Message(N_("set '{variable}' aside (re-attached from similar people)"), variable=weakest),
                    settings, replace(plan, excluded=(*plan.excluded, weakest)))
    if settings.method == "avatar":
        k_fix = _smallest_passing([k for k in K_STEPS if settings.k < k < n_avatarized], lambda k: attempt(
            Message(N_("raise k from {old} to {new}"), old=settings.k, new=k), replace(settings, k=k)).ready)
        kept = k_fix is not None and tried[repr((replace(settings, k=k_fix), plan))].keeps_signal(evaluation)
        ncp = settings.ncp or evaluation.parameters.get("ncp")
        if not kept and ncp and ncp > SMALLEST_NCP:
            _smallest_passing(list(range(ncp - 1, SMALLEST_NCP - 1, -1)), lambda value: attempt(
                Message(N_("compare people on {new} dimensions instead of {old} (ncp)"), old=ncp, new=value),
                replace(settings, ncp=value)).ready)
        if not any(fix.ready for fix in tried.values()):
            attempt(Message(N_("switch to AvatarFastDP (gaussian, epsilon {epsilon})"),
                            epsilon=Number(FALLBACK_EPSILON, "g")),
                    replace(settings, method="fast_dp", mechanism="gaussian", epsilon=FALLBACK_EPSILON))
    else:
        _smallest_passing([epsilon for epsilon in EPSILON_STEPS if epsilon < settings.epsilon][::-1], lambda value: attempt(
            Message(N_("lower epsilon from {old} to {new}"), old=Number(settings.epsilon, "g"), new=Number(value, "g")),
            replace(settings, epsilon=value)).ready)
    ready = [fix for fix in tried.values() if fix.ready]
    best = max(ready, key=lambda fix: (fix.keeps_signal(evaluation), fix.signal()), default=None)
    return best, list(tried.values())


def checked_verdict(evaluation: Evaluation, settings: Settings, plan: ColumnPlan, n_avatarized: int, rerun: Rerun,
                    progress: Progress | None = None) -> Verdict:
    """The verdict, with (when a target is missed) the fix :func:`search_fix` finds."""
    verdict = verdict_of(evaluation)
    if verdict.status != NOT_READY:
        return verdict
    start = time.perf_counter()
    fix, tried = search_fix(evaluation, settings, plan, n_avatarized, rerun, progress)
    return replace(verdict, fix=fix, tried=tried, searched=True, search_seconds=time.perf_counter() - start)


def shared_rerun(run: GenerationRun, table: Callable[[], pd.DataFrame]) -> Rerun:
    """Re-runs of ``run``'s table that share its preparation: another method or ``ncp`` starts from the run's own
    typing, split, encoding and projection (:class:`~core.engine.pipeline.Variants`, the neighbours searched once
    per ``ncp``), scored against the same halves with the metric spaces fitted once; another column plan needs a
    fresh fit of the table (``table()``, read only then)."""
    variants: list[Variants] = []
    spaces = run.evaluation.spaces
    frames: list[pd.DataFrame] = []

    def rerun(settings: Settings, plan: ColumnPlan) -> Evaluation:
        variant = settings_variant(run.settings, settings)
        if plan == run.plan and variant is not None:
            variants[:] = variants or [Variants(run.avatarizer)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # what the run said about its columns and k is not said again
                fitted = variants[0].fit(variant)
            return evaluate_avatarization(fitted, spaces, plan.knowledge)
        frames[:] = frames or [table()]
        return evaluation_with(frames[0], plan, settings)

    return rerun


def judged(run: GenerationRun, table: Callable[[], pd.DataFrame], search: bool = True,
           progress: Progress | None = None) -> GenerationRun:
    """``run`` with its verdict; when a target is missed (and ``search``), a fix checked by re-running on the table
    the run was made from (see :func:`shared_rerun`)."""
    run.verdict = checked_verdict(run.evaluation, run.settings, run.plan, len(run.avatars),
                                  shared_rerun(run, table), progress) if search else verdict_of(run.evaluation)
    return run


def generate_judged(frame: pd.DataFrame, plan: ColumnPlan, settings: Settings, *, table_name: str, fingerprint: str,
                    progress: Callable[[str, float], None] | None = None) -> GenerationRun:
    """:func:`~core.workflows.run.generate`, then the verdict, with a fix checked when a target is missed: each
    setting tried is a step of the progress bar, with its name; the run's time is the whole."""
    report = progress or (lambda step, share: None)
    start = time.perf_counter()
    run = generate(frame, plan, settings, table_name=table_name, fingerprint=fingerprint,
                   progress=lambda step, share: report(step, 0.75 * share))
    report(_("Checking whether the avatars can be shared"), 0.75)
    judged(run, lambda: frame, progress=lambda step, tries: report(step, 0.75 + 0.25 * (1 - 0.7 ** (tries + 1))))
    run.elapsed_s = time.perf_counter() - start
    report(_("Done"), 1.0)
    return run


def rescored(run: GenerationRun, plan: ColumnPlan, frame: pd.DataFrame,
             progress: Callable[[str, float], None] | None = None) -> GenerationRun:
    """``run`` scored again for another attacker (``plan``'s known and sensitive variables: the avatars do not
    change), with its verdict."""
    report = progress or (lambda step, share: None)
    report(_("Running the attacks"), 0.1)
    evaluation = evaluate_avatarization(run.avatarizer, run.evaluation.spaces, knowledge=plan.knowledge)
    report(_("Checking whether the avatars can be shared"), 0.5)
    rescored_run = judged(replace(run, plan=plan, evaluation=evaluation, verdict=None), lambda: frame,
                          progress=lambda step, tries: report(step, 0.5 + 0.5 * (1 - 0.7 ** (tries + 1))))
    report(_("Done"), 1.0)
    return rescored_run
