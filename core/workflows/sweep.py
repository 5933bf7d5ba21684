"""The privacy/utility trade-off: many settings, several seeds each, every metric, and advice.

For each seed, one :class:`~core.engine.pipeline.Avatarizer` prepares the data once (typing,
holdout split, imputation, projection) and fits every setting from there, the
neighbour search done once at the largest ``k``; each run is scored against the same
halves with the projections fitted once (:class:`~core.metrics.space.MetricSpaces`).
A run of the sweep equals a separate run with the same seed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from core.dataset import Dataset
from core.engine.dataset_avatarizer import DatasetAvatarizer, check_methods
from core.engine.methods import Avatar, AvatarFastDP
from core.engine.parameters import Parameters
from core.engine.schema import drop_columns
from core.errors import InputError
from core.i18n import _, enumeration, localized_number, ngettext, number, percent
from core.metrics.evaluation import Evaluation, evaluate_avatarization
from core.metrics.registry import DEFINITIONS, TARGETS
from core.metrics.space import MetricSpaces
from core.validation import check_whole_number
from core.workflows.linked_run import LinkedRun, person_evaluation, scored, with_setting
from core.workflows.plan import ColumnPlan
from core.workflows.run import build_avatarizer
from core.workflows.search_space import SIGNAL_SPREAD

UTILITY_METRICS = {name: DEFINITIONS[name].axis_label for name in ("hellinger_mean", "correlation_difference_ratio")}
PRIVACY_METRICS = {name: DEFINITIONS[name].axis_label for name in TARGETS}


@dataclass(frozen=True)
class SweepSetting:
    """One point of the sweep: a method and its main parameter."""

    method: str
    value: float
    mechanism: str = "gaussian"

    @property
    def label(self) -> str:
        if self.method == Avatar.name:
            return f"k = {int(self.value)}"
        return f"epsilon = {number(self.value, 'g')} ({self.mechanism})"

    def variant(self) -> dict[str, object]:
        if self.method == Avatar.name:
            return {"k": int(self.value), "fast_dp_epsilon": None}
        return Parameters.fast_dp_values(float(self.value), self.mechanism)


@dataclass
class SweepPoint:
    """A setting's metrics over the seeds run so far."""

    setting: SweepSetting
    seeds: list[int] = field(default_factory=list)
    values: dict[str, list[float | None]] = field(default_factory=dict)
    variable_scores: dict[str, list[float]] = field(default_factory=dict)
    lower_bounds: set[str] = field(default_factory=set)  # metrics whose value is "at least" with some seed
    passed: dict[str, list[bool | None]] = field(default_factory=dict)  # per privacy metric, each seed's verdict

    def add(self, seed: int, evaluation: Evaluation) -> None:
        self.seeds.append(seed)
        for name, result in {**evaluation.signal, **evaluation.privacy}.items():
            self.values.setdefault(name, []).append(result.value)
            if result.breakdown.get("at_least"):
                self.lower_bounds.add(name)
        for name, result in evaluation.privacy.items():
            self.passed.setdefault(name, []).append(result.passed)
        for row in evaluation.signal["hellinger_mean"].breakdown.get("per_variable", []):
            self.variable_scores.setdefault(row["variable"], []).append(row["score"])

    def mean(self, metric: str) -> float | None:
        values = self._present(metric)
        return float(np.mean(values)) if values else None

    def spread(self, metric: str) -> float | None:
        """Seed-to-seed standard deviation (0 with one seed), for the JSON; the pages show the range."""
        values = self._present(metric)
        return float(np.std(values, ddof=1)) if len(values) > 1 else (0.0 if values else None)

    def low(self, metric: str) -> float | None:
        """The lowest value any seed gave."""
        values = self._present(metric)
        return min(values) if values else None

    def high(self, metric: str) -> float | None:
        """The highest value any seed gave."""
        values = self._present(metric)
        return max(values) if values else None

    def _present(self, metric: str) -> list[float]:
        return [v for v in self.values.get(metric, []) if v is not None]

    def meets_targets(self) -> bool:
        """Every applicable privacy target met by every seed: a user generates with one seed, any of them."""
        return not self.missed_targets()

    def missed_targets(self) -> list[str]:
        """The applicable privacy targets that at least one seed misses."""
        return [name for name in TARGETS if self.seeds_missing(name)]

    def seeds_missing(self, metric: str) -> int:
        """How many seeds miss ``metric``'s privacy target, as each run's verdict says (a risk is judged on its
        interval's upper end; a distance shown with a note is not judged)."""
        return sum(passed is False for passed in self.passed.get(metric, []))

    def worst(self, metric: str) -> float | None:
        """The seed value farthest from ``metric``'s target side: the lowest, or the highest of a risk."""
        return self.high(metric) if DEFINITIONS[metric].goal == "minimize" else self.low(metric)

    def targets_text(self) -> str:
        """``met`` or ``missed: hidden rate (1 of 3 seeds), ...``: the privacy targets in a few words."""
        missed = self.missed_targets()
        if not missed:
            return _("met")
        return _("missed: {metrics}").format(metrics=", ".join(
            _with_seeds(self, name, DEFINITIONS[name].label_in_text) for name in missed))

    def to_json(self) -> dict[str, object]:
        return {
            "method": self.setting.method,
            **({"k": int(self.setting.value)} if self.setting.method == Avatar.name
               else {"epsilon": self.setting.value, "mechanism": self.setting.mechanism}),
            "seeds": self.seeds,
            "metrics": {
                name: {"mean": self.mean(name), "std": self.spread(name), "min": self.low(name), "max": self.high(name),
                       "values": values,
                       **({"at_least": True} if name in self.lower_bounds else {})}
                for name, values in self.values.items()
            },
            "hellinger_per_variable": {
                name: {"mean": float(np.mean(scores)), "values": scores} for name, scores in self.variable_scores.items()
            },
            "meets_privacy_targets": self.meets_targets(),
        }


def measured(value: float | None) -> float:
    """A point's mean, lowest or highest ``value`` of a metric some seed measured (None only when none did): the
    Hellinger Mean of a point scored, a metric every point drawn or advised has, a target missed on a value."""
    assert value is not None
    return value


def sweep_settings(
    k_values: Sequence[int] = (), epsilon_values: Sequence[float] = (), mechanisms: Sequence[str] = ("gaussian",)
) -> list[SweepSetting]:
    """Every requested setting, in order: the k values, then each epsilon for each mechanism."""
    settings = [SweepSetting(Avatar.name, k) for k in k_values]
    settings += [SweepSetting(AvatarFastDP.name, epsilon, mechanism) for mechanism in mechanisms for epsilon in epsilon_values]
    if not settings:
        raise InputError(_("The sweep needs at least one k value or one epsilon value."))
    return settings


def run_sweep(
    frame: pd.DataFrame,
    plan: ColumnPlan,
    base: Parameters,
    settings: Sequence[SweepSetting],
    n_seeds: int = 3,
    on_result: Callable[[SweepPoint, int], None] | None = None,
) -> list[SweepPoint]:
    """Every setting for seeds ``base.seed, base.seed + 1, ...``; ``on_result`` is told after each run.

    Stopping is the caller's: what has finished is in the points passed to ``on_result``.
    """
    n_seeds = check_whole_number("seeds", n_seeds, minimum=1)
    frame = drop_columns(frame, plan.dropped, _("The columns to drop"))
    points = [SweepPoint(setting) for setting in settings]
    first_seed = base.seed if base.seed is not None else 0
    for seed in range(first_seed, first_seed + n_seeds):
        preparer = build_avatarizer(plan, replace(base, seed=seed))
        spaces = MetricSpaces()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # k = 2 is a legitimate point of a sweep
            fitted_runs = preparer.fit_variants(frame, [setting.variant() for setting in settings],
                                                 keys=plan.table.keys, relations=plan.table.relations)
            for point, fitted in zip(points, fitted_runs, strict=True):
                point.add(seed, evaluate_avatarization(fitted, spaces, plan.knowledge))
                if on_result is not None:
                    on_result(point, seed)
    return points


def run_linked_sweep(
    run: LinkedRun,
    frames: Mapping[str, pd.DataFrame],
    table: str,
    settings: Sequence[SweepSetting],
    n_seeds: int = 3,
    on_result: Callable[[SweepPoint, int], None] | None = None,
) -> list[SweepPoint]:
    """Every setting of linked table ``table``, the other tables as ``run`` made them, for seeds ``run``'s,
    ``+ 1``...: each a run of every table (its own settings written as a fix's are: see
    :func:`~core.workflows.linked_run.with_setting`), scored for ``run``'s attacker on the people ``table``
    describes, each with everything about them (:func:`person_of`); ``on_result`` is told after each run."""
    n_seeds = check_whole_number("seeds", n_seeds, minimum=1)
    for setting in settings:  # a setting the dataset refuses (AvatarFastDP for a time series' persons): before any run
        check_methods(swept_dataset(run, table, setting), run.parameters)
    person = person_of(run.dataset, table)
    points = [SweepPoint(setting) for setting in settings]
    for seed in range(run.fitted.seed_, run.fitted.seed_ + n_seeds):
        for point in points:
            dataset = swept_dataset(run, table, point.setting)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # k = 2 is a legitimate point of a sweep
                fitted = DatasetAvatarizer(dataset, replace(run.parameters, seed=seed)).fit(frames)
            point.add(seed, person_evaluation(scored(fitted, run.knowledge), person))
            if on_result is not None:
                on_result(point, seed)
    return points


def swept_dataset(run: LinkedRun, table: str, setting: SweepSetting) -> Dataset:
    """``run``'s dataset with table ``table`` set as ``setting`` says (its k, or its epsilon and mechanism), the other
    tables as they were: a point of :func:`run_linked_sweep`, or the setting taken from it."""
    described = run.dataset.tables[table]
    effective = run.parameters.for_table(described)
    own = with_setting(described, effective, effective.with_values(setting.variant()))
    return run.dataset.with_table(own)


def person_of(dataset: Dataset, name: str) -> str:
    """The individual-level table whose people table ``name``'s rows describe: itself, or its nearest individual-level
    ancestor by first parents (``name`` itself when it has none)."""
    table = name
    while not dataset.is_individual_level(table) and dataset.parent_links(table):
        table = dataset.parent_links(table)[0].parent
    return table if dataset.is_individual_level(table) else name


def pareto_front(xs: Sequence[float], ys: Sequence[float]) -> list[int]:
    """Indices of the points no other point beats on both axes (both to maximise), by increasing x."""
    order = sorted(range(len(xs)), key=lambda i: (-xs[i], -ys[i]))
    front, best_y = [], -np.inf
    for index in order:
        if ys[index] > best_y:
            front.append(index)
            best_y = ys[index]
    return sorted(front, key=lambda i: xs[i])


def recommendation(points: Sequence[SweepPoint]) -> str:
    """One sentence: the best utility among the settings whose every seed meets every privacy target, or what fails.

    Utility is the marginals (Hellinger Mean) and the relationships alike: a safe setting whose Correlation
    Difference Ratio falls below the best safe one's by more than its seed-to-seed spread
    (:data:`~core.workflows.search_space.SIGNAL_SPREAD`) is not advised (FastDP on Wage kept the best Hellinger Mean at a
    correlation ratio of 11 against 71 to 100 for the k settings), and the advice says what it would cost.
    Settings whose Hellinger Means' seed ranges overlap the best one's are a tie: the seeds cannot tell them
    apart, so the advice says so and names, among them, the one that protects the most.
    """
    scored = [p for p in points if p.mean("hellinger_mean") is not None]
    if not scored:
        return _("No setting has finished yet.")
    safe = _safe(scored)
    if not safe:
        return _none_safe(scored)
    kept, distorting = _keeping_relationships(safe)
    advice = _advice(kept)
    if distorting and kept[0].mean("correlation_difference_ratio") is not None \
            and measured(distorting[0].mean("hellinger_mean")) > measured(kept[0].mean("hellinger_mean")):
        advice += " " + _("{setting} keeps a higher Hellinger Mean ({mean}) but distorts the relationships between "
                          "variables: correlation ratio {ratio} against {best} for {advised}.").format(
            setting=distorting[0].setting.label, mean=_range(distorting[0], "hellinger_mean"),
            ratio=_range(distorting[0], "correlation_difference_ratio"),
            best=_range(kept[0], "correlation_difference_ratio"), advised=kept[0].setting.label)
    return advice


def _keeping_relationships(safe: list[SweepPoint]) -> tuple[list[SweepPoint], list[SweepPoint]]:
    """The safe settings whose Correlation Difference Ratio is within its spread of the best safe one's (or not
    measured), and the others, each in the order given."""
    ratios = [p.mean("correlation_difference_ratio") for p in safe]
    best = max((ratio for ratio in ratios if ratio is not None), default=None)
    spread = SIGNAL_SPREAD["correlation_difference_ratio"]
    kept = [p for p, ratio in zip(safe, ratios, strict=True) if best is None or ratio is None or ratio >= best - spread]
    return kept, [p for p in safe if p not in kept]


def _advice(safe: list[SweepPoint]) -> str:
    """The sentence for the safe settings kept, the best Hellinger Mean first (see :func:`recommendation`)."""
    best, tied = safe[0], _tied(safe)
    several = len(best.seeds) > 1
    if len(tied) == 1:
        values = dict(setting=best.setting.label, seeds=number(len(best.seeds), ","),
                      mean=_range(best, "hellinger_mean"), protection=_protection(best))
        if len(safe) > 1:
            values.update(next=safe[1].setting.label, next_mean=_range(safe[1], "hellinger_mean"))
            return (_("{setting} keeps the most signal while meeting every privacy target with each of its {seeds} "
                      "seeds: Hellinger Mean {mean} / 100, above the next, {next}, at {next_mean}, and {protection}.")
                    if several else
                    _("{setting} keeps the most signal while meeting every privacy target: Hellinger Mean {mean} "
                      "/ 100, above the next, {next}, at {next_mean}, and {protection}.")).format(**values)
        return (_("{setting} keeps the most signal while meeting every privacy target with each of its {seeds} seeds: "
                  "Hellinger Mean {mean} / 100, and {protection}.")
                if several else
                _("{setting} keeps the most signal while meeting every privacy target: Hellinger Mean {mean} / 100, "
                  "and {protection}.")).format(**values)
    safest = _safest(tied)
    values = dict(settings=enumeration([p.setting.label for p in tied]), means=", ".join(_range(p, "hellinger_mean") for p in tied),
                  safest=safest.setting.label, protection=_protection(safest))
    return (_("{settings} are a tie on signal (Hellinger Mean {means}: their seeds' ranges overlap) and meet every "
              "privacy target with each of their seeds; of these, {safest} protects the most: {protection}.")
            if several else
            _("{settings} are a tie on signal (Hellinger Mean {means}: their seeds' ranges overlap) and meet every "
              "privacy target; of these, {safest} protects the most: {protection}.")).format(**values)


def advised(points: Sequence[SweepPoint]) -> SweepPoint | None:
    """The setting :func:`recommendation` advises: the best safe one kept, the most protective of a tie, or, none being
    safe, the closest to it (None before any has finished). The Trade-off page draws it (issue 46: the advice named
    "epsilon = 10 (gaussian)" while the chart on screen drew the k points only)."""
    scored = [p for p in points if p.mean("hellinger_mean") is not None]
    if not scored:
        return None
    safe = _safe(scored)
    if not safe:
        return _closest(scored)
    tied = _tied(_keeping_relationships(safe)[0])
    return tied[0] if len(tied) == 1 else _safest(tied)


def privacy_axes(points: Sequence[SweepPoint], advised_point: SweepPoint | None) -> tuple[list[str], int]:
    """The privacy metrics some setting has, and the position of the first the ``advised_point`` has (0 if none):
    the Trade-off page's horizontal axis, drawing at first the setting its advice names (issue 46); of those, the
    first whose value differs between settings (linked tables' row direct match protection, 100 for every setting,
    stacked every point on one edge)."""
    axes = [name for name in PRIVACY_METRICS if any(point.mean(name) is not None for point in points)]
    drawn = [position for position, name in enumerate(axes)
             if advised_point is None or advised_point.mean(name) is not None]
    varying = [position for position in drawn
               if len({mean for point in points if (mean := point.mean(axes[position])) is not None}) > 1]
    return axes, (varying or drawn or [0])[0]


def _safe(scored: Sequence[SweepPoint]) -> list[SweepPoint]:
    """The settings whose every seed meets every privacy target, the best Hellinger Mean first."""
    return sorted((p for p in scored if p.meets_targets()), key=lambda p: -measured(p.mean("hellinger_mean")))


def _tied(safe: list[SweepPoint]) -> list[SweepPoint]:
    """The best safe setting and those the seeds cannot tell from it: their Hellinger Means' ranges overlap."""
    best = safe[0]
    lowest = measured(best.low("hellinger_mean"))
    return [best, *(p for p in safe[1:] if measured(p.high("hellinger_mean")) >= lowest)]


def _safest(tied: list[SweepPoint]) -> SweepPoint:
    """Of settings tied on signal, the one that protects the most (hidden rate, else distance to closest)."""
    privacy = "hidden_rate" if all(p.mean("hidden_rate") is not None for p in tied) else "distance_to_closest"
    return max(tied, key=lambda p: measured(p.mean(privacy)))


def _closest(scored: Sequence[SweepPoint]) -> SweepPoint:
    """The setting closest to meeting every target: the fewest missed, by the fewest seeds, the most signal."""
    return min(scored, key=lambda p: (
        len(p.missed_targets()), sum(p.seeds_missing(name) for name in p.missed_targets()),
        -measured(p.mean("hellinger_mean"))
    ))


def _range(point: SweepPoint, metric: str) -> str:
    """``91.1`` with one seed, ``91.1 (90.8 to 91.4)`` with several."""
    mean, low, high = (measured(value) for value in (point.mean(metric), point.low(metric), point.high(metric)))
    if len(point.seeds) == 1:
        return number(mean, ".1f")
    return _("{mean} ({low} to {high})").format(mean=number(mean, ".1f"), low=number(low, ".1f"),
                                                high=number(high, ".1f"))


def _protection(point: SweepPoint) -> str:
    """``it hides 92 % of individuals``: how the setting protects, as a clause."""
    hidden = point.mean("hidden_rate")
    if hidden is not None:
        return _("it hides {share} % of individuals").format(share=number(hidden, ".0f"))
    return _("it keeps avatars {distance} away from the nearest real person").format(
        distance=number(measured(point.mean("distance_to_closest")), ".2f"))


def _none_safe(scored: Sequence[SweepPoint]) -> str:
    """The closest setting to meeting every target, what it misses, and where to look next."""
    closest = _closest(scored)
    described = ", ".join(_missed(closest, name) for name in closest.missed_targets())
    k_values = [p.setting.value for p in scored if p.setting.method == Avatar.name]
    epsilons = [p.setting.value for p in scored if p.setting.method == AvatarFastDP.name]
    tries = ([_("k values above {k}").format(k=int(max(k_values)))] if k_values else []) + (
        [_("epsilon values below {epsilon}").format(epsilon=number(min(epsilons), "g"))] if epsilons else [])
    tried = _("{first} or {second}").format(first=tries[0], second=tries[1]) if len(tries) > 1 else tries[0]
    return _("No setting meets every privacy target. The closest, {setting}, misses {missed}. Try {tries}, or drop the "
             "columns that make people unique.").format(setting=closest.setting.label, missed=described, tries=tried)


def _missed(point: SweepPoint, metric: str) -> str:
    """``hidden rate 88.0 % (target > 90 %)``, with how many seeds miss it when there are several."""
    definition, worst = DEFINITIONS[metric], measured(point.worst(metric))  # a seed missed its target on a value
    target = definition.target_text
    assert target is not None  # a privacy metric: it has a target
    value = percent(worst) if definition.unit == "%" else number(worst, ".3f")
    missed = _("{metric} {value} (target {target})").format(metric=definition.label_in_text, value=value,
                                                            target=localized_number(target))
    return _with_seeds(point, metric, missed)


def _with_seeds(point: SweepPoint, metric: str, text: str) -> str:
    """``text (1 of 3 seeds)``: how many seeds miss ``metric``'s target, when there are several."""
    if len(point.seeds) < 2:
        return text
    missing = point.seeds_missing(metric)
    return ngettext("{text} ({missing} of {seeds} seeds)", "{text} ({missing} of {seeds} seeds)", missing).format(
        text=text, missing=missing, seeds=len(point.seeds))
