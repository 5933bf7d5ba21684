"""Every metric of one set of avatars, as one :class:`Evaluation`: of an avatarization made here
(:func:`evaluate_avatarization`) or of avatars made by any tool (:func:`evaluate`), scored by :func:`score`, with the
analyses asked for (:func:`analyse`).

The jobs around it live beside it: the holdout cases of SPEC section 5 in :mod:`core.metrics.holdout`, the checks
of the files given in :mod:`core.metrics.inputs`, the JSON of section 7 in :mod:`core.metrics.metrics_json`. The
privacy metrics always compare the originals the avatars were made from with all the avatars (SPEC section 6).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.dataset.relations import Relation, RelationsAsked
from core.engine.kept_relations import KeptRelations
from core.engine.parameters import DEFAULT_NCP
from core.engine.pipeline import Avatarizer
from core.engine.schema import apply_kinds, profile_columns, resolve_kinds, with_text_names
from core.engine.split import Holdout
from core.engine.stages import check_ncp
from core.engine.timing import timed
from core.errors import InputError
from core.i18n import N_, _
from core.metrics.attack import Knowledge
from core.metrics.context import NOT_PAIRED, AttackSides, PrivacyContext, PrivacyReference, SignalContext
from core.metrics.criteria import CriterionResult, criteria_of
from core.metrics.holdout import HoldoutSplit, avatarization_split, outside_split
from core.metrics.identifier_protection import identifier_like
from core.metrics.inputs import known_values_only, typed_like, unseen_modalities
from core.metrics.metrics_json import evaluation_json
from core.metrics.registry import SIGNAL_NAMES, privacy_metrics, privacy_names, signal_metrics
from core.metrics.result import MetricResult
from core.metrics.risk_profile import RiskProfile, risk_profile
from core.metrics.space import MetricSpace, MetricSpaces
from core.validation import check_seed

if TYPE_CHECKING:  # the analyses (scikit-learn, statsmodels) are imported when one is asked for
    from core.metrics.analysis.request import AnalysisRequest

NOT_MADE_FROM_ONE_PERSON = N_(
    "Not applicable: AvatarFastDP samples new points, so no avatar is made from one particular person."
)
NOT_PAIRED_ROW_BY_ROW = N_("Not applicable: the avatars are not paired with the originals row by row (--not-paired).")
NOT_PAIRED_ROW_COUNTS = N_(
    "Not applicable: the avatars are not paired with the originals row by row (the two files have different row "
    "counts)."
)


@dataclass
class Evaluation:
    """The metrics of one set of avatars and how they were obtained."""

    holdout: Holdout
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
    risk_profile: RiskProfile | None = None  # who the known variables single out among the real people (SPEC 6.4)
    # what the privacy metrics left out are computed on (a fix search's setting that missed a target: see score())
    privacy_pending: PrivacyContext | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.holdout = Holdout(self.holdout)  # its word ("real") taken, a wrong one refused

    def privacy_targets_met(self) -> tuple[int, int]:
        """How many privacy targets are met, of those that apply."""
        applicable = [result.passed for result in self.privacy.values() if result.passed is not None]
        return sum(applicable), len(applicable)

    def criteria(self) -> dict[str, CriterionResult]:
        """The privacy figures grouped by the criterion they answer (SPEC 6.2), in its order."""
        return criteria_of(self.privacy)

    def to_json(self) -> dict[str, Any]:
        """The JSON of SPEC section 7 (:func:`~core.metrics.metrics_json.evaluation_json`)."""
        return evaluation_json(self)

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
    holdout_kind: Holdout = Holdout.GIVEN,
    relations: RelationsAsked | None = None,
) -> Evaluation:
    """Score ``avatars`` made from ``originals`` by any tool (``python -m core evaluate``); ``analysis`` adds the
    analyses of SPEC section 9 it asks for.

    With ``holdout`` the case is ``holdout_kind`` (``given``, a file; ``real``, the half a linked run set aside),
    else ``approximate``. ``paired`` says whether avatar ``i`` was made from original ``i``; by default, when the row
    counts match. Only the columns present in both tables are scored (the others are listed in ``left_out_columns``);
    the column kinds come from ``originals``. ``relations``: what a schema's table asks of its relations (found or
    not, ignored, declared), scored as asked; None: every relation found exact on the originals.
    """
    seed = check_seed(seed)
    check_ncp(ncp)
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
    typed_avatars = typed_like(avatars[common], kinds, N_("In the avatars: {error}"))
    unseen = unseen_modalities(typed_originals, avatars[common], kinds)
    paired = len(originals) == len(avatars) if paired is None else paired
    if paired and len(originals) != len(avatars):
        raise InputError(_("The avatars cannot be paired with the originals: {avatars} avatars for {originals} "
                           "originals.").format(avatars=len(avatars), originals=len(originals)))
    split = outside_split(typed_originals, typed_avatars, holdout, common, kinds, paired, np.random.default_rng(seed),
                          holdout_kind)
    reason = NOT_PAIRED_ROW_BY_ROW if len(originals) == len(avatars) else NOT_PAIRED_ROW_COUNTS
    real = originals[common] if holdout is None else pd.concat([originals[common], holdout[common]])
    identifiers = {name: (real[name], avatars[name])
                   for name in identifier_like(profile_columns(typed_originals, kinds))}
    kept = KeptRelations.of(typed_originals, kinds, list(identifiers), relations or RelationsAsked()).relations
    evaluation = score(split, typed_originals, typed_avatars, kinds, paired=paired, ncp=ncp, unpaired_reason=reason,
                       ncp_at_most_axes=True, knowledge=knowledge, identifiers=identifiers, relations=kept)
    evaluation.left_out_columns = left_out
    evaluation.warnings = unseen
    evaluation.parameters = {**evaluation.parameters, "seed": seed, "paired": paired}
    if analysis is not None:
        analyse(evaluation, analysis)
    return evaluation


def attackable_kinds(originals: pd.DataFrame, avatars: pd.DataFrame, column_kinds: Mapping[str, str] | None = None
                     ) -> dict[str, Kind]:
    """The kinds of the columns :func:`evaluate` scores that an attacker may know or want: those of both tables, the
    identifier-like apart (what the recipient's attacker may be widened to, decisions 6.7)."""
    common = [name for name in originals.columns if name in set(avatars.columns)]
    kinds = resolve_kinds(originals[common], column_kinds)
    identifiers = set(identifier_like(profile_columns(apply_kinds(originals[common], kinds), kinds)))
    return {name: kind for name, kind in kinds.items() if name not in identifiers}


def analyse(evaluation: Evaluation, request: AnalysisRequest, names: Iterable[str] | None = None,
            progress: Callable[[str], None] | None = None) -> None:
    """Add to ``evaluation`` the analyses of SPEC section 9 that ``request`` asks for (or only ``names``), run on
    its WO, HO and WA, each timed in ``timings_s`` ("analysis: survival"); the request is kept in its parameters."""
    from core.metrics.analysis.request import run_analyses

    split = evaluation.split
    assert split is not None, "an evaluation is scored with its split (score())"
    request.checked(split.working.columns)
    avatars = known_values_only(split.working_avatars, [split.working, split.holdout], evaluation.kinds)
    for name in request.names() if names is None else names:
        with timed(evaluation.timings_s, f"analysis: {name}"):
            evaluation.analyses.update(run_analyses(split.working, split.holdout, avatars, evaluation.kinds,
                                                    request, evaluation.parameters.get("seed", 0), [name], progress))
    evaluation.parameters = {**evaluation.parameters, "analysis": request.to_json()}


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
    relations: Sequence[Relation] = (),
    signal_names: Collection[str] | None = None,
    until_failing: bool = False,
) -> Evaluation:
    """Every metric of the registry on typed frames: signal on ``split`` (WO / HO / WA), privacy on ``originals``
    and all their ``avatars``; the attacks of SPEC 6.2 on WO (members) and HO (controls) with the attacker's
    ``knowledge``; ``identifiers``, each identifier-like column's real values and the avatars' (none: no such
    column); ``relations``, those between the originals' columns that the avatars should keep; ``signal_names``,
    the signal metrics computed (None: every one; the others added by :func:`completed` when asked);
    ``until_failing``, the privacy metrics computed up to the first that misses its target, cheapest first (a fix
    search's setting: the others added by :func:`with_every_privacy_metric` when its sentences read them).

    ``spaces`` keeps the projections fitted on WO and on the originals for the next call
    with the same frames (a sweep). With ``ncp_at_most_axes``, an ``ncp`` beyond the originals' axes is refused
    (the user's value, as ``avatarize`` refuses it) instead of taken as all of them.
    """
    spaces = spaces or MetricSpaces()
    if len(split.holdout) == 0 or len(split.working) == 0:
        raise InputError(_("The metrics need at least two original rows, to compare two halves of the data."))
    timings: dict[str, float] = {}
    signal_space = spaces.of(split.working, kinds)  # the originals' space too, with a real holdout
    signal = signal_metrics(SignalContext(split.working, split.holdout, split.working_avatars, kinds, signal_space,
                                          relations), timings, signal_names)
    with timed(timings, "privacy projection"):
        space = spaces.of(originals, kinds)
        n_axes = _privacy_axes(space, ncp, ncp_at_most_axes)
        reference, avatar_coordinates, sides = _privacy_sides(split, originals, avatars, kinds, space, n_axes,
                                                              knowledge)
    context = PrivacyContext(reference, avatar_coordinates, avatars, paired, unpaired_reason, sides, identifiers)
    with timed(timings, "privacy"):
        privacy = privacy_metrics(context, timings, until_failing=until_failing)
    for fitted in {id(space): space, id(signal_space): signal_space}.values():
        fitted.forget_encoded()
    profile = _profile(sides, kinds, timings) if knowledge.known else None
    return Evaluation(
        holdout=split.kind,
        rows={"working": len(split.working), "holdout": len(split.holdout), "avatars": len(avatars)},
        signal=signal,
        privacy=privacy,
        parameters={"ncp": n_axes, "attacker": knowledge.to_json()},
        timings_s=timings,
        split=split,
        kinds=dict(kinds),
        risk_profile=profile,
        privacy_pending=context if len(privacy) < len(privacy_names()) else None,
    )


def _privacy_axes(space: MetricSpace, ncp: int | None, at_most_axes: bool) -> int:
    """The axes the privacy metrics compare people on: ``ncp`` (the default when None), all the originals' axes when
    it asks more, unless ``at_most_axes`` (then refused, as ``avatarize`` refuses it)."""
    n_axes = min(ncp or DEFAULT_NCP, len(space.projection.components_))
    if at_most_axes and ncp is not None and ncp > n_axes:
        raise InputError(_("ncp must be at most {n_axes}, the number of scaled columns of the originals, got "
                           "{ncp}.").format(n_axes=n_axes, ncp=ncp))
    return n_axes


def _privacy_sides(split: HoldoutSplit, originals: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind],
                   space: MetricSpace, n_axes: int, knowledge: Knowledge
                   ) -> tuple[PrivacyReference, np.ndarray, AttackSides]:
    """The originals' side (kept in ``space`` for every set of avatars), the avatars' coordinates, and the members
    and controls of the attacks (the controls' coordinates kept too) on the first ``n_axes`` axes of ``space``."""
    reference = space.kept(("privacy", n_axes), lambda: PrivacyReference.of(
        space.projection.transform(space.table, n_axes), originals, kinds))
    avatar_coordinates = space.projection.transform(space.encode(avatars), n_axes)
    members = originals if split.holdout_rows is not None else split.working  # approximate: every original
    controls = space.kept_for(split.holdout, ("coordinates", n_axes), lambda: space.projection.transform(
        space.coded(split.holdout), n_axes))
    return reference, avatar_coordinates, AttackSides(members, split.holdout, controls, split.holdout_rows,
                                                      knowledge.checked(kinds, originals))


def completed(evaluation: Evaluation, relations: Sequence[Relation]) -> Evaluation:
    """``evaluation`` with every signal metric: those :func:`score` left out (its ``signal_names``) computed now,
    on the same halves in the same space, in the registry's order (``relations``: those it was scored with)."""
    evaluation = with_every_privacy_metric(evaluation)
    split, spaces = evaluation.split, evaluation.spaces
    missing = [name for name in SIGNAL_NAMES if name not in evaluation.signal]
    if not missing:
        return evaluation
    assert split is not None and spaces is not None  # an avatarization's evaluation (evaluate_avatarization)
    timings = dict(evaluation.timings_s)
    added = signal_metrics(SignalContext(split.working, split.holdout, split.working_avatars, evaluation.kinds,
                                         spaces.of(split.working, evaluation.kinds), relations), timings, missing)
    return replace(evaluation, signal={name: evaluation.signal[name] if name in evaluation.signal else added[name]
                                                  for name in SIGNAL_NAMES},
                   timings_s=timings)


def with_every_privacy_metric(evaluation: Evaluation) -> Evaluation:
    """``evaluation`` with the privacy metrics :func:`score` left out (its ``until_failing``) computed now on the same
    originals and avatars, in the registry's order."""
    context = evaluation.privacy_pending
    if context is None:
        return evaluation
    timings = dict(evaluation.timings_s)
    with timed(timings, "privacy"):
        added = privacy_metrics(context, timings, [name for name in privacy_names() if name not in evaluation.privacy])
    every = {**evaluation.privacy, **added}
    return replace(evaluation, privacy={name: every[name] for name in privacy_names()}, timings_s=timings,
                   privacy_pending=None)


def _profile(sides: AttackSides, kinds: Mapping[str, Kind], timings: dict[str, float]) -> RiskProfile:
    """Who the known variables single out among every real person of the table (SPEC 6.4): the originals, and the
    holdout when it is apart from them."""
    with timed(timings, "risk profile"):
        real = sides.members if sides.approximate else pd.concat([sides.members, sides.controls], ignore_index=True)
        knowledge = sides.knowledge
        return risk_profile(real, kinds, knowledge.known, dict(knowledge.precision))


def evaluate_avatarization(avatarizer: Avatarizer, spaces: MetricSpaces | None = None,
                           knowledge: Knowledge = Knowledge(), signal_names: Collection[str] | None = None,
                           until_failing: bool = False) -> Evaluation:
    """Every metric of a fitted :class:`~core.engine.pipeline.Avatarizer`: a real holdout when it set one aside.

    The approximate holdout, when needed, is drawn from a generator seeded by the run's
    seed, apart from the one that made the avatars, so that every run with that seed
    (each setting of a sweep) is scored against the same halves. ``spaces``, the attacker's ``knowledge``, the
    ``signal_names`` computed and ``until_failing`` are passed on to :func:`score`.
    """
    spaces = spaces or MetricSpaces()
    paired = avatarizer.method_.paired
    left_out = avatarizer.identifier_columns_  # new identifiers: nothing of the originals to measure
    originals = spaces.without(avatarizer.split_.working_data, left_out)  # one object per run: spaces kept
    kinds = {name: kind for name, kind in avatarizer.kinds_.items() if name not in left_out}
    avatars = apply_kinds(_without(avatarizer.paired_avatars_ if paired else avatarizer.avatars_, left_out), kinds)
    holdout = None if avatarizer.holdout_ is not Holdout.REAL else spaces.without(avatarizer.split_.holdout_data,
                                                                                   left_out)
    split = avatarization_split(originals, holdout, avatars, paired, spaces, avatarizer.seed_)
    prepared, made = avatarizer.split_, with_text_names(avatarizer.avatars_)
    real = [frame for frame in (prepared.working_data, prepared.holdout_data) if frame is not None]
    identifiers = {name: (pd.concat([frame[name] for frame in real]), made[name])
                   for name in identifier_like(avatarizer.profiles_) if name in made.columns}
    evaluation = score(split, originals, avatars, kinds, paired=paired, ncp=avatarizer.ncp_,
                       unpaired_reason=NOT_MADE_FROM_ONE_PERSON, spaces=spaces, knowledge=knowledge,
                       identifiers=identifiers, relations=avatarizer.relations_, signal_names=signal_names,
                       until_failing=until_failing)
    evaluation.parameters = {**evaluation.parameters, "ncp": avatarizer.ncp_, "seed": avatarizer.seed_,
                             "paired": paired}
    evaluation.left_out_columns = list(left_out)
    evaluation.spaces = spaces
    return evaluation


def _without(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``frame``, its columns named as the engine names them, without ``columns``."""
    frame = with_text_names(frame)
    return frame.drop(columns=columns) if columns else frame
