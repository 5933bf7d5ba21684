"""Every metrics document the workbench writes (SPEC sections 7 and 10), each built here and nowhere else, in
English whatever the language shown: a run's (``avatarize --json``, the Report page's download), an evaluation's
(``evaluate --json``), linked tables', a batch run's and a sweep's. Each holds the JSON of section 7 of what it scored
(:func:`~core.metrics.metrics_json.evaluation_json`; one per batch in a batch run's ``per_batch``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.engine.methods import method_of
from core.engine.parameters import Parameters
from core.metrics.evaluation import Evaluation
from core.presentation.format import in_english
from core.presentation.verdict_text import LINKED_TABLES, noise_of, relationships, verdict_json
from core.workflows.plan import ColumnPlan
from core.workflows.release import Release
from core.workflows.linked_run import LinkedRun, LinkedVerdict
from core.workflows.run import GenerationRun
from core.workflows.runs import Run
from core.workflows.sweep import SweepPoint
from core.workflows.verdict import Verdict

if TYPE_CHECKING:
    from core.metrics.linked_evaluation import LinkedEvaluation
    from core.workflows.batch_run import BatchRun, BatchSettings


@in_english
def run_json(run: Run) -> dict[str, Any]:
    """A run's metrics: one table's (SPEC section 7) with its full parameters, timings, AvatarFastDP's epsilon
    ledger, the verdict and what the correlations say; linked tables' (:func:`linked_json`)."""
    if isinstance(run, LinkedRun):
        return linked_json(run.evaluation, run.verdict, run.parameters_json(), run.release)
    assert isinstance(run, GenerationRun)  # the other kind of run
    avatarizer, verdict = run.avatarizer, run.table_verdict
    metrics = run.evaluation.to_json()
    metrics["parameters"] = {**avatarizer.get_params(), **metrics["parameters"], "method": avatarizer.method_.name}
    metrics["timings_s"] = {**avatarizer.timings_s_, **metrics["timings_s"]}
    if not avatarizer.method_.paired:
        synthesizer = avatarizer.synthesizer_
        assert synthesizer is not None  # AvatarFastDP: its fitted synthesizer
        metrics["epsilon_ledger"] = {**synthesizer.ledger(), "reading": noise_of(run)}
    metrics = {**metrics, "verdict": verdict_json(verdict), "relationships": relationships(run.evaluation),
               "release": run.release.to_json()}
    if verdict.searched:  # the seconds with the other timings: the rest is the same for the same seed
        metrics["timings_s"] = {**metrics["timings_s"], "fix search": verdict.search_seconds}
    return metrics


@in_english
def evaluation_document(evaluation: Evaluation, verdict: Verdict, release: Release) -> dict[str, Any]:
    """The metrics of avatars made by any tool, with the verdict (no fix: nothing here can re-run them) and the
    release they are judged for."""
    return {**evaluation.to_json(), "verdict": verdict_json(verdict), "release": release.to_json()}


@in_english
def linked_json(evaluation: LinkedEvaluation, verdict: LinkedVerdict, parameters: dict[str, Any], release: Release
                ) -> dict[str, Any]:
    """Linked tables' metrics (SPEC 12): per table the JSON of section 7, per link its metrics, per individual-level
    table with children its enriched scoring, the one verdict (each person table's, the links that break) and the
    release."""
    return {**evaluation.to_json(), "parameters": parameters, "verdict": {
        "ready": verdict.ready, "status": verdict.status, "broken_links": verdict.broken_links,
        "persons": {name: verdict_json(person, LINKED_TABLES) for name, person in verdict.persons.items()}},
        "release": release.to_json()}


def batch_json(run: BatchRun, params: dict, settings: BatchSettings) -> dict[str, Any]:
    """A batch run's metrics (SPEC section 10): the mean and worst batch, how many batches meet each target, the
    verdict, each batch's own metrics, the parameters and timings."""
    summary = run.summary
    assert summary is not None  # a scored run (metrics asked): its batches' summary
    return {
        "batches": {**summary, "rows": run.rows_per_batch},
        "verdict": {"ready": summary["ready"], "status": summary["status"],
                    "not_assessed": summary["not_assessed"],
                    "failing_batches": sorted({batch for entry in summary["targets_met"].values()
                                               for batch in entry["failing"]})},
        "per_batch": run.batches,
        "parameters": {**params, "method": method_of(Parameters.of(params)).name,
                       "batch_rows": settings.batch_rows, "scheduler": settings.scheduler,
                       "part_format": settings.part_format, "fast_dp_sample_rows": run.latent_sample_rows},
        "rows": run.n_rows, "avatars": run.n_avatars, "parts": [str(part) for part in run.parts],
        **({"risk_profile": run.risk_profile.to_json()} if run.risk_profile else {}),
        "timings_s": run.timings_s,
    }


def sweep_json(points: list[SweepPoint], advice: str, base: Parameters, plan: ColumnPlan, *, seeds: int,
               elapsed_s: float) -> dict[str, Any]:
    """A sweep's points (each setting's metrics over the seeds), its advice and the parameters they share (``base``,
    its seed the first of the ``seeds``)."""
    return {
        "points": [point.to_json() for point in points],
        "advice": advice,
        "parameters": {
            "seeds": seeds, "first_seed": base.seed, "ncp": base.ncp,
            "holdout": base.holdout, "imputation": base.imputation,
            "categorical_reduction": base.use_categorical_reduction, "column_kinds": plan.table.column_kinds,
            "column_weights": plan.table.column_weights, "dropped": list(plan.dropped), "excluded": list(plan.excluded),
            "exclude_strategy": base.exclude_replacement_strategy, "gmm_n_components": base.gmm_n_components,
            "attacker": plan.knowledge.to_json(),
            "histogram_n_bins": base.histogram_n_bins, "bounds_percentile": base.bounds_percentile,
        },
        "timings_s": {"total": elapsed_s},
    }
