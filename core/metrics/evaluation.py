"""Every metric of one set of avatars, with the holdout of SPEC section 5, as an object and as the JSON of section 7.

Three holdout cases:
- ``real``: the avatarization set a random half aside before synthesis (HO); WO is the
  half avatarized and WA its avatars;
- ``given``: ``evaluate --holdout`` supplies HO; WO is ORIGINAL and WA is AVATARS;
- ``approximate``: no holdout exists; a random half of the originals is WO, the other
  half HO, and WA is the avatars of WO when avatars are paired with their originals,
  else a random half of the avatars.
The privacy metrics always compare the originals the avatars were made from with all
the avatars (SPEC section 6).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from core.engine.parameters import DEFAULT_NCP
from core.engine.pipeline import Avatarizer
from core.engine.schema import Kind, apply_kinds, profile_columns, resolve_kinds, with_text_names
from core.engine.split import split_holdout
from core.engine.timing import timed
from core.errors import InputError
from core.i18n import N_, _
from core.metrics.attack import Knowledge
from core.metrics.context import NOT_PAIRED, AttackSides, PrivacyContext, PrivacyReference, SignalContext
from core.metrics.criteria import CriterionResult, criteria_of
from core.metrics.identifier_protection import identifier_like
from core.metrics.registry import privacy_metrics, signal_metrics
from core.metrics.result import MetricResult
from core.metrics.space import MetricSpaces
from core.validation import check_seed, check_whole_number

if TYPE_CHECKING:  # the analyses (scikit-learn, statsmodels) are imported when one is asked for
    from core.metrics.analysis.request import AnalysisRequest

SECTION_7_SIGNAL = ("hellinger_mean", "correlation_difference_ratio", "multivariate_hellinger_distance")
NOT_MADE_FROM_ONE_PERSON = N_(
    "Not applicable: AvatarFastDP samples new points, so no avatar is made from one particular person."
)
NOT_PAIRED_ROW_BY_ROW = N_("Not applicable: the avatars are not paired with the originals row by row (--not-paired).")
NOT_PAIRED_ROW_COUNTS = N_(
    "Not applicable: the avatars are not paired with the originals row by row (the two files have different row "
    "counts)."
)


@dataclass(frozen=True)
class HoldoutSplit:
    """WO, HO and WA of SPEC section 5, and which holdout they come from: "real", "given" or "approximate"."""

    working: pd.DataFrame
    holdout: pd.DataFrame
    working_avatars: pd.DataFrame
    kind: str
    holdout_rows: np.ndarray | None = None  # HO's row numbers among the originals scored, when it is part of them


@dataclass
class Evaluation:
    """The metrics of one set of avatars and how they were obtained."""

    holdout: str
    rows: dict[str, int]
    signal: dict[str, MetricResult]
    privacy: dict[str, MetricResult]
    parameters: dict[str, Any] = field(default_factory=dict)
    timings_s: dict[str, float] = field(default_factory=dict)
    left_out_columns: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # what the user should know about the scoring itself
    analyses: dict[str, Any] = field(default_factory=dict)  # SPEC section 9, by name: "prediction"...
    split: HoldoutSplit | None = field(default=None, repr=False, compare=False)  # what the analyses run on
    kinds: Mapping[str, Kind] = field(default_factory=dict, repr=False, compare=False)
    spaces: MetricSpaces | None = field(default=None, repr=False, compare=False)  # for more avatars of the same rows

    def privacy_targets_met(self) -> tuple[int, int]:
        """How many privacy targets are met, of those that apply."""
        applicable = [result.passed for result in self.privacy.values() if result.passed is not None]
        return sum(applicable), len(applicable)

    def criteria(self) -> dict[str, CriterionResult]:
        """The privacy figures grouped by the criterion they answer (SPEC 6.2), in its order."""
        return criteria_of(self.privacy)

    def to_json(self) -> dict[str, Any]:
        """The JSON of SPEC section 7 (values in the units of sections 5 and 6)."""
        hellinger = self.signal["hellinger_mean"]
        correlation = self.signal["correlation_difference_ratio"]
        multivariate = self.signal["multivariate_hellinger_distance"]
        return {
            "holdout": self.holdout,
            "rows": self.rows,
            "signal": {
                "hellinger_mean": hellinger.value,
                "hellinger_per_variable": hellinger.breakdown.get("per_variable", []),
                "hellinger_std": hellinger.breakdown.get("standard_deviation"),
                "correlation_difference_ratio": correlation.value,
                "correlation_reference_difference": correlation.breakdown.get("reference_difference"),
                "correlation_avatar_difference": correlation.breakdown.get("avatar_difference"),
                "kappa": correlation.breakdown.get("kappa"),
                "multivariate_hellinger_distance": multivariate.value,
                "multivariate_hellinger_seed_formula": multivariate.breakdown.get("seed_formula"),
                "multivariate_hellinger_per_axis": multivariate.breakdown.get("per_axis", []),
                "not_applicable": {name: r.not_applicable for name, r in self.signal.items() if r.not_applicable},
                **{name: r.value for name, r in self.signal.items() if name not in SECTION_7_SIGNAL},  # added metrics
            },
            "privacy": {
                **{name: result.value for name, result in self.privacy.items()},
                "criteria": {criterion: group.to_json() for criterion, group in self.criteria().items()},
                "attacks": {name: _attack_detail(self.privacy[name]) for name in ATTACKS if name in self.privacy},
            },
            "privacy_targets": {
                name: {"target": result.target, "target_text": result.target_text, "passed": result.passed,
                       "not_applicable": result.not_applicable, "awaits_choice": result.awaits_choice,
                       "note": result.note,
                       "at_least": bool(result.breakdown.get("at_least"))}  # the value is a lower bound
                for name, result in self.privacy.items()
            },
            "parameters": self.parameters,
            "left_out_columns": self.left_out_columns,
            **({"warnings": self.warnings} if self.warnings else {}),
            **({"analyses": {kind: _finite(result.to_json()) for kind, result in self.analyses.items()}}
               if self.analyses else {}),
            "timings_s": self.timings_s,
        }


ATTACKS = ("linkability_risk", "inference_risk")


def _finite(value: Any) -> Any:
    """``value`` with every number JSON can hold: NaN and infinities (a score undefined on one class, a p-value of a
    degenerate fit) become null, numpy numbers plain ones."""
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _attack_detail(result: MetricResult) -> dict[str, Any] | None:
    """An attack's rates, interval and baseline (JSON-ready), or None when it did not run."""
    return None if result.value is None else dict(result.breakdown)


def _outside_split(typed_originals: pd.DataFrame, typed_avatars: pd.DataFrame, holdout: pd.DataFrame | None,
                   common: list[str], kinds: Mapping[str, Kind], paired: bool, rng: np.random.Generator
                   ) -> HoldoutSplit:
    """The holdout case of avatars made outside (SPEC section 5): ``given`` with ``holdout``, else ``approximate``
    (half of the originals drawn as the reference)."""
    if holdout is not None:
        missing = [name for name in common if name not in holdout.columns]
        if missing:
            raise InputError(_("The holdout has no column '{name}': it must have the originals' columns.").format(
                name=missing[0]))
        return HoldoutSplit(typed_originals, _typed_like(holdout[common], kinds, N_("In the holdout: {error}")),
                            typed_avatars, "given")
    working_rows, holdout_rows, avatar_rows = approximate_rows(len(typed_originals), len(typed_avatars), paired, rng)
    return HoldoutSplit(_rows(typed_originals, working_rows), _rows(typed_originals, holdout_rows),
                        _rows(typed_avatars, avatar_rows), "approximate", holdout_rows)


def evaluate(
    originals: pd.DataFrame,
    avatars: pd.DataFrame,
    *,
    holdout: pd.DataFrame | None = None,
    paired: bool | None = None,
    column_kinds: Mapping[str, str] | None = None,
    ncp: int | None = None,
    seed: int | None = None,
    knowledge: Knowledge = Knowledge(),
    analysis: AnalysisRequest | None = None,
) -> Evaluation:
    """Score ``avatars`` made from ``originals`` by any tool (``python -m core evaluate``); ``analysis`` adds the
    analyses of SPEC section 9 it asks for.

    With ``holdout`` the case is ``given``, else ``approximate``. ``paired`` says whether
    avatar ``i`` was made from original ``i``; by default, when the row counts match.
    Only the columns present in both tables are scored (the others are listed in
    ``left_out_columns``); the column kinds come from ``originals``.
    """
    seed = check_seed(seed)
    if ncp is not None:
        check_whole_number("ncp", ncp, minimum=1, hint=_("ncp is the number of latent dimensions, for example 5."))
    common = [name for name in originals.columns if name in set(avatars.columns)]
    if not common:
        raise InputError(_("The originals and the avatars have no column in common: check that they are the same "
                           "table."))
    left_out = [name for name in originals.columns if name not in common] + [
        name for name in avatars.columns if name not in set(originals.columns)
    ]
    if analysis is not None:
        why = _("is not in both files: the analyses need it in the originals and the avatars")
        analysis.checked(common, dict.fromkeys(left_out, why))
    kinds = resolve_kinds(originals[common], column_kinds)
    typed_originals = apply_kinds(originals[common], kinds)
    if not avatars[common].notna().to_numpy().any():
        raise InputError(_("The avatars hold no value at all: there is nothing to score. Check the avatars' file."))
    typed_avatars = _typed_like(avatars[common], kinds, N_("In the avatars: {error}"))
    unseen = _unseen_modalities(typed_originals, avatars[common], kinds)
    paired = len(originals) == len(avatars) if paired is None else paired
    if paired and len(originals) != len(avatars):
        raise InputError(_("The avatars cannot be paired with the originals: {avatars} avatars for {originals} "
                           "originals.").format(avatars=len(avatars), originals=len(originals)))
    split = _outside_split(typed_originals, typed_avatars, holdout, common, kinds, paired, np.random.default_rng(seed))
    reason = NOT_PAIRED_ROW_BY_ROW if len(originals) == len(avatars) else NOT_PAIRED_ROW_COUNTS
    real = originals[common] if holdout is None else pd.concat([originals[common], holdout[common]])
    identifiers = {name: (real[name], avatars[name])
                   for name in identifier_like(profile_columns(typed_originals, kinds))}
    evaluation = score(split, typed_originals, typed_avatars, kinds, paired=paired, ncp=ncp, unpaired_reason=reason,
                       ncp_at_most_axes=True, knowledge=knowledge, identifiers=identifiers)
    evaluation.left_out_columns = left_out
    evaluation.warnings = unseen
    evaluation.parameters = {**evaluation.parameters, "seed": seed, "paired": paired}
    if analysis is not None:
        analyse(evaluation, analysis)
    return evaluation


def analyse(evaluation: Evaluation, request: AnalysisRequest, names: Iterable[str] | None = None,
            progress: Callable[[str], None] | None = None) -> None:
    """Add to ``evaluation`` the analyses of SPEC section 9 that ``request`` asks for (or only ``names``), run on
    its WO, HO and WA, each timed in ``timings_s`` ("analysis: survival"); the request is kept in its parameters."""
    from core.metrics.analysis.request import run_analyses

    split = evaluation.split
    request.checked(split.working.columns)
    avatars = _known_values_only(split.working_avatars, [split.working, split.holdout], evaluation.kinds)
    for name in request.names() if names is None else names:
        with timed(evaluation.timings_s, f"analysis: {name}"):
            evaluation.analyses.update(run_analyses(split.working, split.holdout, avatars, evaluation.kinds,
                                                    request, evaluation.parameters.get("seed", 0), [name], progress))
    evaluation.parameters = {**evaluation.parameters, "analysis": request.to_json()}


def _known_values_only(avatars: pd.DataFrame, originals: list[pd.DataFrame], kinds: Mapping[str, Kind]) -> pd.DataFrame:
    """``avatars`` with the categorical values no original has as missing, as the metrics count them (and as the
    warning of :func:`_unseen_modalities` says): an avatar file's stray code does not turn a two-valued event into
    three."""
    masked = {}
    for name, kind in kinds.items():
        if kind is Kind.CATEGORICAL:
            known = {str(value) for frame in originals for value in pd.unique(frame[name].dropna().astype(object))}
            stray = [value for value in pd.unique(avatars[name].dropna().astype(object)) if str(value) not in known]
            if stray:
                masked[name] = avatars[name].where(~avatars[name].isin(stray))
    return avatars.assign(**masked) if masked else avatars


def approximate_rows(
    n_originals: int, n_avatars: int, paired: bool, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of WO, HO (among the originals) and WA (among the avatars) for the approximate holdout (SPEC section 5)."""
    working_rows, holdout_rows = split_holdout(n_originals, rng)
    avatar_rows = working_rows if paired else np.sort(rng.permutation(n_avatars)[: (n_avatars + 1) // 2])
    return working_rows, holdout_rows, avatar_rows


def _rows(frame: pd.DataFrame, rows: np.ndarray) -> pd.DataFrame:
    return frame.iloc[rows].reset_index(drop=True)


def score(
    split: HoldoutSplit,
    originals: pd.DataFrame,
    avatars: pd.DataFrame,
    kinds: Mapping[str, Kind],
    *,
    paired: bool,
    ncp: int | None = None,
    unpaired_reason: str = NOT_PAIRED,
    spaces: MetricSpaces | None = None,
    ncp_at_most_axes: bool = False,
    knowledge: Knowledge = Knowledge(),
    identifiers: Mapping[str, tuple[pd.Series, pd.Series]] | None = None,
) -> Evaluation:
    """Every metric of the registry on typed frames: signal on ``split`` (WO / HO / WA), privacy on ``originals``
    and all their ``avatars``; the attacks of SPEC 6.2 on WO (members) and HO (controls) with the attacker's
    ``knowledge``; ``identifiers``, each identifier-like column's real values and the avatars' (none: no such
    column).

    ``spaces`` keeps the projections fitted on WO and on the originals for the next call
    with the same frames (a sweep). With ``ncp_at_most_axes``, an ``ncp`` beyond the originals' axes is refused
    (the user's value, as ``avatarize`` refuses it) instead of taken as all of them.
    """
    spaces = spaces or MetricSpaces()
    if len(split.holdout) == 0 or len(split.working) == 0:
        raise InputError(_("The metrics need at least two original rows, to compare two halves of the data."))
    timings: dict[str, float] = {}
    signal = signal_metrics(SignalContext(split.working, split.holdout, split.working_avatars, kinds,
                                          spaces.of(split.working, kinds)), timings)
    with timed(timings, "privacy projection"):
        space = spaces.of(originals, kinds)
        n_axes = min(ncp or DEFAULT_NCP, len(space.projection.components_))
        if ncp_at_most_axes and ncp is not None and ncp > n_axes:
            raise InputError(_("ncp must be at most {n_axes}, the number of scaled columns of the originals, got "
                               "{ncp}.").format(n_axes=n_axes, ncp=ncp))
        reference = space.kept(("privacy", n_axes), lambda: PrivacyReference.of(
            space.projection.transform(space.table, n_axes), originals, kinds
        ))
        avatar_coordinates = space.projection.transform(space.encode(avatars), n_axes)
        members = originals if split.holdout_rows is not None else split.working  # approximate: every original
        sides = AttackSides(members, split.holdout, space.projection.transform(space.encode(split.holdout), n_axes),
                            split.holdout_rows, knowledge.checked(kinds))
    with timed(timings, "privacy"):
        privacy = privacy_metrics(PrivacyContext(reference, avatar_coordinates, avatars, paired, unpaired_reason,
                                                 sides, identifiers), timings)
    return Evaluation(
        holdout=split.kind,
        rows={"working": len(split.working), "holdout": len(split.holdout), "avatars": len(avatars)},
        signal=signal,
        privacy=privacy,
        parameters={"ncp": n_axes, "attacker": knowledge.to_json()},
        timings_s=timings,
        split=split,
        kinds=dict(kinds),
    )


def _unseen_modalities(originals: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind]) -> list[str]:
    """A sentence per categorical column whose avatars hold values the originals never have: the metrics count
    them as missing, which the user must know."""
    said = []
    for name, kind in kinds.items():
        if kind is not Kind.CATEGORICAL:
            continue
        known = set(originals[name].dropna().astype(str))
        unseen = avatars[name].dropna().astype(str)
        unseen = unseen[~unseen.isin(known)]
        if len(unseen):
            examples = ", ".join(repr(value) for value in unseen.unique()[:3])
            said.append(f"In the avatars, '{name}' has {len(unseen)} value{'s' if len(unseen) > 1 else ''} the "
                        f"originals never have ({examples}): the metrics and analyses count them as missing.")
    return said


def _typed_like(frame: pd.DataFrame, kinds: Mapping[str, Kind], where: str) -> pd.DataFrame:
    """``frame`` typed as ``kinds`` say, else the error that says which file: ``where``, a message with ``{error}``."""
    try:
        return apply_kinds(frame, kinds)
    except InputError as error:
        raise InputError(_(where).format(error=error)) from None


def evaluate_avatarization(avatarizer: Avatarizer, spaces: MetricSpaces | None = None,
                           knowledge: Knowledge = Knowledge()) -> Evaluation:
    """Every metric of a fitted :class:`~core.engine.pipeline.Avatarizer`: a real holdout when it set one aside.

    The approximate holdout, when needed, is drawn from a generator seeded by the run's
    seed, apart from the one that made the avatars, so that every run with that seed
    (each setting of a sweep) is scored against the same halves. ``spaces`` and the attacker's ``knowledge`` are
    passed on to :func:`score`.
    """
    spaces = spaces or MetricSpaces()
    paired = avatarizer.method_.paired
    left_out = avatarizer.identifier_columns_  # new identifiers: nothing of the originals to measure
    originals = spaces.without(avatarizer.split_.working_data, left_out)  # one object per run: spaces kept
    kinds = {name: kind for name, kind in avatarizer.kinds_.items() if name not in left_out}
    avatars = apply_kinds(_without(avatarizer.paired_avatars_ if paired else avatarizer.avatars_, left_out), kinds)
    if avatarizer.holdout_ == "real":
        split = HoldoutSplit(originals, spaces.without(avatarizer.split_.holdout_data, left_out), avatars, "real")
    else:
        working, holdout, avatar_rows, holdout_rows = spaces.approximate_split(
            originals, len(avatars), paired, lambda: approximate_rows(len(originals), len(avatars), paired,
                                                                      np.random.default_rng([avatarizer.seed_, 1])),
        )
        split = HoldoutSplit(working, holdout, avatars.iloc[avatar_rows].reset_index(drop=True), "approximate",
                             holdout_rows)
    prepared, made = avatarizer.split_, with_text_names(avatarizer.avatars_)
    real = [frame for frame in (prepared.working_data, prepared.holdout_data) if frame is not None]
    identifiers = {name: (pd.concat([frame[name] for frame in real]), made[name])
                   for name in identifier_like(avatarizer.profiles_) if name in made.columns}
    evaluation = score(split, originals, avatars, kinds, paired=paired, ncp=avatarizer.ncp_,
                       unpaired_reason=NOT_MADE_FROM_ONE_PERSON, spaces=spaces, knowledge=knowledge,
                       identifiers=identifiers)
    evaluation.parameters = {**evaluation.parameters, "ncp": avatarizer.ncp_, "seed": avatarizer.seed_,
                             "paired": paired}
    evaluation.left_out_columns = list(left_out)
    evaluation.spaces = spaces
    return evaluation


def _without(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``frame``, its columns named as the engine names them, without ``columns``."""
    frame = with_text_names(frame)
    return frame.drop(columns=columns) if columns else frame
