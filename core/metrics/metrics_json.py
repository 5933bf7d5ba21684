"""The metrics JSON of one evaluation (SPEC section 7), written once: every document of metrics holds it (the
documents are built in :mod:`core.presentation.metrics_json`; a batch run's parts hold one per batch)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.evaluation import Evaluation

SECTION_7_SIGNAL = ("hellinger_mean", "correlation_difference_ratio", "multivariate_hellinger_distance")
ATTACKS = ("linkability_risk", "inference_risk")


def evaluation_json(evaluation: Evaluation) -> dict[str, Any]:
    """The JSON of SPEC section 7 of ``evaluation`` (values in the units of sections 5 and 6)."""
    hellinger = evaluation.signal["hellinger_mean"]
    correlation = evaluation.signal["correlation_difference_ratio"]
    multivariate = evaluation.signal["multivariate_hellinger_distance"]
    return {
        "holdout": evaluation.holdout,
        "rows": evaluation.rows,
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
            "relations": relations_json(evaluation.signal.get("broken_relations")),
            "propensity": propensity_json(evaluation.signal.get("propensity_mse")),
            "not_applicable": {name: r.not_applicable for name, r in evaluation.signal.items() if r.not_applicable},
            **{name: r.value for name, r in evaluation.signal.items() if name not in SECTION_7_SIGNAL},  # added metrics
        },
        "privacy": {
            **{name: result.value for name, result in evaluation.privacy.items()},
            "criteria": {criterion: group.to_json() for criterion, group in evaluation.criteria().items()},
            "attacks": {name: _attack_detail(evaluation.privacy[name]) for name in ATTACKS if name in evaluation.privacy},
            "disclosure": disclosure_json(evaluation.privacy),
        },
        "privacy_targets": {
            name: {"target": result.target, "target_text": result.target_text, "passed": result.passed,
                   "not_applicable": result.not_applicable, "awaits_choice": result.awaits_choice,
                   "uncertain": result.uncertain,
                   "note": result.note,
                   "at_least": bool(result.breakdown.get("at_least"))}  # the value is a lower bound
            for name, result in evaluation.privacy.items()
        },
        **({"risk_profile": evaluation.risk_profile.to_json()} if evaluation.risk_profile else {}),
        "parameters": evaluation.parameters,
        "left_out_columns": evaluation.left_out_columns,
        **({"warnings": evaluation.warnings} if evaluation.warnings else {}),
        **({"analyses": {kind: finite(result.to_json()) for kind, result in evaluation.analyses.items()}}
           if evaluation.analyses else {}),
        "timings_s": evaluation.timings_s,
    }


def relations_json(result: MetricResult | None) -> list[dict[str, Any]]:
    """Each relation the avatars should keep, in words, with the share (%) of originals and of avatars breaking it."""
    return [{**relation.to_dict(), "sentence": relation.sentence(), "originals_broken": originals,
             "avatars_broken": avatars} for relation, originals, avatars in
            (result.breakdown.get("per_relation", []) if result else [])]


def finite(value: Any) -> Any:
    """``value`` with every number JSON can hold: NaN and infinities (a score undefined on one class, a p-value of a
    degenerate fit) become null, numpy numbers plain ones."""
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def propensity_json(result: MetricResult | None) -> dict[str, Any] | None:
    """pMSE, S_pMSE, its p-value and reading, the holdout's S_pMSE (issue 50); None when it did not run."""
    if result is None or result.value is None:
        return None
    return finite({**result.breakdown, "reading": result.band})


def disclosure_json(privacy: Mapping[str, MetricResult]) -> dict[str, Any] | None:
    """synthpop's disclosure measures (issue 50): the keys, the identity measures (UiO, UiS, UiOiS, repU and the
    holdout's repU) and, per sensitive variable, the attribute measures (Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO and the
    holdout's DiSCO), in %; None when the known variables are not chosen."""
    identity, attribute = privacy.get("replicated_uniques"), privacy.get("disclosive_correct_original")
    if identity is None or identity.value is None:
        return None
    return {"keys": identity.breakdown["keys"],
            "identity": {name: value for name, value in identity.breakdown.items() if name != "keys"},
            "attribute": attribute.breakdown["per_variable"] if attribute is not None and attribute.value is not None
            else {}}


def _attack_detail(result: MetricResult) -> dict[str, Any] | None:
    """An attack's rates, interval and baseline (JSON-ready), or None when it did not run."""
    return None if result.value is None else dict(result.breakdown)
