"""One plain verdict on a set of avatars (SPEC section 6.3): ready to share or not, why, and the fix, checked.

**Ready to share** when every applicable privacy target is met; otherwise **not ready**, naming each criterion and
metric that fails, and the fix computed for this run: the next more protective settings (k up, epsilon down), or
setting aside the column that avatars copy from their own original, or another method, each re-run and scored, the
first that meets every target kept (at most ``MAX_TRIES`` re-runs), reported with the figures it reaches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pandas as pd

from core.i18n import N_, Message, Number, _
from core.metrics.evaluation import ATTACKS, Evaluation, evaluate_avatarization
from core.metrics.result import MetricResult
from core.workflows.advice import EPSILON_STEPS, K_STEPS
from core.workflows.run import ColumnPlan, GenerationRun, Settings, evaluation_with, generate

MAX_TRIES = 3
FALLBACK_EPSILON = 1.0


@dataclass(frozen=True)
class Fix:
    """Settings that were re-run and scored: what to change (``instruction``), and the evaluation it reaches."""

    instruction: str
    settings: Settings
    plan: ColumnPlan
    evaluation: Evaluation

    @property
    def ready(self) -> bool:
        return not failing_results(self.evaluation)


@dataclass(frozen=True)
class Verdict:
    """Ready or not; the failing metrics by criterion; the attacks not run (no known or sensitive variables
    chosen); the fix, the first setting a re-run shows ready (None: ready already, not searched, or none of those
    tried), and every setting tried with what it reached.
    The words are :mod:`core.presentation.verdict_text`'s."""

    ready: bool
    failing: dict[str, list[MetricResult]]
    not_assessed: list[MetricResult]
    fix: Fix | None = None
    tried: list[Fix] = field(default_factory=list)
    searched: bool = False  # whether fixes were looked for (never for avatars made elsewhere)


def failing_results(evaluation: Evaluation) -> dict[str, list[MetricResult]]:
    """The metrics that miss their target, by criterion."""
    return {criterion: group.failing for criterion, group in evaluation.criteria().items() if group.failing}


def verdict_of_run(run: GenerationRun) -> Verdict:
    """The run's verdict: the one :func:`judged` set, else the one its evaluation gives (no fix searched)."""
    return run.verdict or verdict_of(run.evaluation)


def verdict_of(evaluation: Evaluation) -> Verdict:
    """The verdict without a fix (see :func:`checked_verdict`)."""
    failing = failing_results(evaluation)
    attacks = [evaluation.privacy[name] for name in ATTACKS if name in evaluation.privacy]
    return Verdict(ready=not failing, failing=failing, not_assessed=[result for result in attacks if result.value is None])


def candidate_fixes(evaluation: Evaluation, settings: Settings, plan: ColumnPlan,
                    n_avatarized: int) -> list[tuple[str, Settings, ColumnPlan]]:
    """The settings to try, most likely first: the copied column set aside when column direct match protection
    fails, then the method's knob, spread over the steps more protective; for Avatar, last, AvatarFastDP (whose
    avatars are sampled from a model, not made from one person: the remedy when no k keeps avatars away from the
    people they come from)."""
    candidates = []
    column = evaluation.privacy.get("column_direct_match_protection")
    if column is not None and column.passed is False and column.breakdown.get("per_variable"):
        weakest = min(column.breakdown["per_variable"], key=lambda row: row["protection"])["variable"]
        if weakest not in plan.excluded:
            candidates.append((Message(N_("set '{variable}' aside (re-attached from similar people)"),
                                       variable=weakest), settings, replace(plan, excluded=(*plan.excluded, weakest))))
    if settings.method == "avatar":
        larger = [step for step in K_STEPS if settings.k < step < n_avatarized]
        reach = list(dict.fromkeys(larger[:1] + larger[-1:]))  # the next k, and the largest offered
        candidates += [(Message(N_("raise k from {old} to {new}"), old=settings.k, new=k), replace(settings, k=k), plan)
                       for k in reach][:MAX_TRIES - 1 - len(candidates)]
        candidates.append((Message(N_("switch to AvatarFastDP (gaussian, epsilon {epsilon})"),
                                   epsilon=Number(FALLBACK_EPSILON, "g")),
            replace(settings, method="fast_dp", mechanism="gaussian", epsilon=FALLBACK_EPSILON), plan))
    else:
        smaller = [step for step in EPSILON_STEPS if step < settings.epsilon][::-1]
        candidates += [(Message(N_("lower epsilon from {old} to {new}"), old=Number(settings.epsilon, "g"),
                                new=Number(epsilon, "g")),
                        replace(settings, epsilon=epsilon), plan) for epsilon in _spread(smaller)]
    return candidates[:MAX_TRIES]


def _spread(steps: list) -> list:
    """The next step, every other one, and the last: three tries reach further (epsilon 0.3, 0.03, 0.01 from 1)
    than three in a row."""
    spread = steps[:1] + steps[2::2]
    return spread if not steps or spread[-1] == steps[-1] else [*spread, steps[-1]]


def checked_verdict(evaluation: Evaluation, settings: Settings, plan: ColumnPlan, n_avatarized: int,
                    rerun: Callable[[Settings, ColumnPlan], Evaluation]) -> Verdict:
    """The verdict, with (when not ready) the first candidate fix that ``rerun`` shows meets every target, and every
    candidate tried up to it."""
    verdict = verdict_of(evaluation)
    if verdict.ready:
        return verdict
    tried = []
    for instruction, new_settings, new_plan in candidate_fixes(evaluation, settings, plan, n_avatarized):
        tried.append(Fix(instruction, new_settings, new_plan, rerun(new_settings, new_plan)))
        if tried[-1].ready:
            break
    ready = [fix for fix in tried if fix.ready]
    return replace(verdict, fix=ready[0] if ready else None, tried=tried, searched=True)



def judged(run: GenerationRun, table: Callable[[], pd.DataFrame], search: bool = True) -> GenerationRun:
    """``run`` with its verdict; when it is not ready (and ``search``), a fix checked by re-running on the table the
    run was made from (``table()``, read only then)."""
    frames: list[pd.DataFrame] = []

    def rerun(settings: Settings, plan: ColumnPlan) -> Evaluation:
        frames[:] = frames or [table()]
        return evaluation_with(frames[0], plan, settings)

    run.verdict = checked_verdict(run.evaluation, run.settings, run.plan, len(run.avatars), rerun) if search \
        else verdict_of(run.evaluation)
    return run


def generate_judged(frame: pd.DataFrame, plan: ColumnPlan, settings: Settings, *, table_name: str, fingerprint: str,
                    progress: Callable[[str, float], None] | None = None) -> GenerationRun:
    """:func:`~core.workflows.run.generate`, then the verdict, with a fix checked when it is not ready (the
    progress bar ends with that check)."""
    report = progress or (lambda step, share: None)
    run = generate(frame, plan, settings, table_name=table_name, fingerprint=fingerprint,
                   progress=lambda step, share: report(step, 0.85 * share))
    report(_("Checking whether the avatars can be shared"), 0.85)
    judged(run, lambda: frame)
    report(_("Done"), 1.0)
    return run


def rescored(run: GenerationRun, plan: ColumnPlan, frame: pd.DataFrame,
             progress: Callable[[str, float], None] | None = None) -> GenerationRun:
    """``run`` scored again for another attacker (``plan``'s known and sensitive variables: the avatars do not
    change), with its verdict."""
    report = progress or (lambda step, share: None)
    report(_("Running the attacks"), 0.1)
    evaluation = evaluate_avatarization(run.avatarizer, knowledge=plan.knowledge)
    report(_("Checking whether the avatars can be shared"), 0.6)
    rescored_run = judged(replace(run, plan=plan, evaluation=evaluation, verdict=None), lambda: frame)
    report(_("Done"), 1.0)
    return rescored_run
