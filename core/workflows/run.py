"""One generation as the dashboard and the HTML report see it: settings in, avatars and metrics out.

Kept free of Streamlit: the pages collect a :class:`ColumnPlan` and the engine's
:class:`~core.engine.parameters.Parameters`,
call :func:`generate` once per submitted form, and draw figures from the returned
:class:`GenerationRun`.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core.dataset import Kind, Role, Table
from core.dataset.relations import Relation
from core.engine.dataset_avatarizer import avatarized_table
from core.engine.kept_relations import KeptRelations
from core.engine.methods import Avatar, method_of
from core.engine.parameters import Parameters
from core.engine.pipeline import VARIANT_PARAMETERS, Avatarizer
from core.engine.schema import drop_columns, with_text_names
from core.engine.split import Holdout
from core.engine.stages import type_table
from core.i18n import N_, _, ngettext, number
from core.metrics.attack import Knowledge
from core.metrics.evaluation import Evaluation, evaluate_avatarization
from core.metrics.space import MetricSpace

if TYPE_CHECKING:
    from core.workflows.verdict import Verdict

LATENT_AXES = 10
LATENT_POINTS = 3_000
GENERATION_SHARE = 0.7  # of the progress bar; the metrics take the rest


@dataclass(frozen=True)
class ColumnPlan:
    """What the user decided: the table as described (a dataset's :class:`~core.dataset.Table`: its columns' roles,
    kinds and weights, its keys; the Data page's column table, or the command line's options) and what an attacker
    could know and would want to learn (the privacy attacks of SPEC 6.2)."""

    table: Table = Table("table")
    knowledge: Knowledge = Knowledge()

    @property
    def dropped(self) -> tuple[str, ...]:
        """The columns left out of the avatars, removed before the fit."""
        return tuple(self.table.with_role(Role.DROPPED))

    @property
    def excluded(self) -> tuple[str, ...]:
        """The columns set aside and re-attached to the avatars."""
        return tuple(self.table.with_role(Role.SET_APART))


@dataclass(frozen=True)
class LatentView:
    """Originals and avatars on the first axes of a projection fitted on the originals (a sample of each, for plots)."""

    originals: np.ndarray
    avatars: np.ndarray
    explained_variance_ratio: np.ndarray
    original_rows: np.ndarray | None = None  # the originals shown, as rows of WO


@dataclass(frozen=True)
class GenerationRun:
    """The outcome of one submitted Generate form, never changed once built (its verdict and whole time given by a
    copy: :func:`core.workflows.verdict.judged`, :func:`core.workflows.verdict.generate_judged`)."""

    table_name: str
    fingerprint: str
    parameters: Parameters  # as chosen; the plan's columns apart (see :func:`build_avatarizer`)
    plan: ColumnPlan
    avatarizer: Avatarizer
    evaluation: Evaluation
    latent: LatentView | None
    elapsed_s: float  # the whole: the avatars, their metrics and the fix search (see made_s)
    verdict: Verdict | None = None  # given by :func:`core.workflows.verdict.judged`

    @property
    def searched_s(self) -> float:
        """The seconds the fix search took (0 when none ran)."""
        return self.verdict.search_seconds if self.verdict is not None and self.verdict.searched else 0.0

    @property
    def made_s(self) -> float:
        """The seconds the avatars and their metrics took, the fix search apart."""
        return self.elapsed_s - self.searched_s

    @property
    def avatars(self) -> pd.DataFrame:
        """The shuffled avatars: the table to share."""
        return self.avatarizer.avatars_

    def summary(self) -> str:
        """One sentence saying what was done."""
        avatarizer, working = self.avatarizer, self.avatarizer.working_data_
        assert working is not None  # a scored run's fit keeps its originals (never low_memory)
        n_avatars, n_working = len(avatarizer.avatars_), len(working)
        searched = self.searched_s
        values = dict(avatars=number(n_avatars, ","), table=self.table_name, working=number(n_working, ","),
                      settings=avatarizer.method_.describe(), seed=avatarizer.seed_, seconds=number(self.made_s, ".1f"))
        if avatarizer.holdout_ is Holdout.REAL:
            holdout = avatarizer.holdout_data_
            assert holdout is not None  # a real holdout, kept by the fit
            sentence = _(
                "{avatars} avatars of {table} made from {working} of the {total} rows "
                "(the other half is kept apart as the holdout the metrics compare with) with {settings}, "
                "seed {seed}, and measured in {seconds} s."
            ).format(total=number(n_working + len(holdout), ","), **values)
        else:
            sentence = _(
                "{avatars} avatars of {table} made from all {working} rows (the metrics draw an approximate holdout: "
                "half of the originals) with {settings}, seed {seed}, and measured in {seconds} s."
            ).format(**values)
        if not searched:
            return sentence
        assert self.verdict is not None  # searched: judged
        return " ".join([sentence, ngettext(  # "Made in 24.1 s" was 0.6 s of avatars and 23.5 s of fixes checked
            "Then {seconds} s checking {count} other setting for a fix.",
            "Then {seconds} s checking {count} other settings for a fix.", len(self.verdict.tried)).format(
            seconds=number(searched, ".1f"), count=number(len(self.verdict.tried)))])


def data_fingerprint(data: bytes) -> str:
    """A short SHA-256 of the input file, so that a report names the exact data it describes."""
    return hashlib.sha256(data).hexdigest()[:16]


def file_fingerprint(paths: Sequence[Path]) -> str:
    """:func:`data_fingerprint` of the files at ``paths`` read one after the other (linked tables: in their schema's
    order), by pieces: a large file is never held whole."""
    digest = hashlib.sha256()
    for path in paths:
        with path.open("rb") as stream:
            while piece := stream.read(1 << 20):
                digest.update(piece)
    return digest.hexdigest()[:16]


def replace_method(parameters: Parameters, method: str, value: float, mechanism: str) -> Parameters:
    """``parameters`` with another method (its ``name``) and main parameter (k or epsilon)."""
    if method == Avatar.name:
        return replace(parameters, k=int(value), fast_dp_epsilon=None)
    return replace(parameters, k=None, fast_dp_epsilon=float(value), mechanism=mechanism)


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
) -> GenerationRun:
    """Avatarize ``frame`` as planned and score the avatars with every metric."""
    start = time.perf_counter()
    report = progress or (lambda step, share: None)
    avatarizer = fitted(frame, plan, parameters,
                        progress=lambda step, share: report(_(_STEP_LABELS[step]), share * GENERATION_SHARE))
    report(_("Measuring utility and privacy"), GENERATION_SHARE)
    run = scored_run(avatarizer, plan, parameters, table_name=table_name, fingerprint=fingerprint, start=start,
                     progress=lambda: report(_("Preparing the figures"), 0.97))
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
) -> GenerationRun:
    """The :class:`GenerationRun` of a fitted ``avatarizer``: every metric and (``with_latent``) the latent view;
    ``start`` is when the work began (``time.perf_counter``). ``progress`` is told when the metrics are done."""
    evaluation = evaluate_avatarization(avatarizer, knowledge=plan.knowledge)
    if progress is not None:
        progress()
    return GenerationRun(
        table_name=table_name, fingerprint=fingerprint, parameters=parameters, plan=plan, avatarizer=avatarizer,
        evaluation=evaluation, latent=latent_view(avatarizer) if with_latent else None,
        elapsed_s=time.perf_counter() - start,
    )


_STEP_LABELS = {
    "typing": N_("Reading the column types"),
    "encoding and imputation": N_("Handling missing values"),
    "projection": N_("Projecting into the latent space"),
    "synthesis": N_("Generating the avatars"),
    "decoding": N_("Bringing the avatars back to the original columns"),
}


def latent_view(avatarizer: Avatarizer) -> LatentView:
    """Originals (WO) and all avatars on the first axes of a projection fitted on WO (missing values at the centroid)."""
    left_out = avatarizer.identifier_columns_
    originals = with_text_names(avatarizer.working_data_).drop(columns=left_out)
    avatars = with_text_names(avatarizer.avatars_).drop(columns=left_out)
    kinds = {name: kind for name, kind in avatarizer.kinds_.items() if name not in left_out}
    return latent_of(originals, avatars, kinds, avatarizer.seed_)


def latent_of(originals: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind], seed: int) -> LatentView:
    """``originals`` and ``avatars`` on the first axes of a projection fitted on the originals, a sample of each
    drawn from ``seed`` when they are many (a person table of linked tables: each person with everything about them)."""
    space = MetricSpace.fit(originals, dict(kinds))
    original_table, avatar_table, projection = space.table, space.encode(avatars), space.projection
    n_axes = max(1, min(LATENT_AXES, projection.n_components_))
    rng = np.random.default_rng([seed, 2])
    original_rows = _sample(len(originals), rng)
    avatar_rows = _sample(len(avatars), rng)
    return LatentView(
        originals=projection.transform(original_table.take(original_rows), n_axes),
        avatars=projection.transform(avatar_table.take(avatar_rows), n_axes),
        explained_variance_ratio=projection.explained_variance_ratio_[:n_axes],
        original_rows=original_rows,
    )


def _sample(n_rows: int, rng: np.random.Generator) -> np.ndarray:
    return np.sort(rng.choice(n_rows, size=LATENT_POINTS, replace=False)) if n_rows > LATENT_POINTS else np.arange(n_rows)
