"""The metrics of avatars made batch by batch (SPEC section 10): each batch is scored against its own holdout
half; the table's figures are the mean over batches and the worst batch (the commercial engine reports both).

The worst is the lowest value of a metric to maximise, the highest of one to minimise (its ``goal``, in
:data:`~core.metrics.registry.DEFINITIONS`); a privacy target is met by the avatars only when every batch meets
it, so the avatars are ready to share only when every batch is, and every target was assessed (SPEC 6.3).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.metrics.registry import DEFINITIONS


def batch_summary(batches: list[dict[str, Any]]) -> dict[str, Any]:
    """The mean and the worst batch of every metric, how many batches meet each privacy target, the privacy metrics
    no batch could assess (the attacks need known and sensitive variables) and the holdouts the batches were scored
    against ("real", or "approximate" for a batch under 500 rows), from each batch's metrics JSON (SPEC section 7),
    in batch order; batches are numbered from 1, as the progress lines and the parts' order."""
    summary: dict[str, Any] = {"count": len(batches), "mean": {}, "worst": {}, "targets_met": {},
                               "holdouts": sorted({batch["holdout"] for batch in batches})}
    for section in ("signal", "privacy"):
        summary["mean"][section], summary["worst"][section] = {}, {}
        for name, definition in DEFINITIONS.items():
            values = [batch[section].get(name) for batch in batches]
            scored = [(position, value) for position, value in enumerate(values) if value is not None]
            if not scored or name not in batches[0][section]:
                continue
            numbers = np.array([value for _, value in scored], dtype=float)
            worst = int(np.argmin(numbers) if definition.goal == "maximize" else np.argmax(numbers))
            summary["mean"][section][name] = float(numbers.mean())
            summary["worst"][section][name] = {"value": float(numbers[worst]), "batch": scored[worst][0] + 1}
    for name in batches[0]["privacy_targets"]:
        verdicts = [batch["privacy_targets"][name]["passed"] for batch in batches]
        judged = [passed for passed in verdicts if passed is not None]
        if judged:
            summary["targets_met"][name] = {"batches": int(sum(judged)), "of": len(judged),
                                            "failing": [position + 1 for position, passed in enumerate(verdicts)
                                                        if passed is False]}
    summary["not_assessed"] = [name for name, target in batches[0]["privacy_targets"].items()
                               if target.get("awaits_choice") and target.get("target") is not None]  # the attacks
    # without known or sensitive variables (synthpop's measures, without a target, hold nothing back)
    summary["uncertain"] = {name: [position + 1 for position, batch in enumerate(batches)
                                   if batch["privacy_targets"][name].get("uncertain")]
                            for name in batches[0]["privacy_targets"]}
    summary["uncertain"] = {name: batches for name, batches in summary["uncertain"].items() if batches}
    met = all(entry["batches"] == entry["of"] for entry in summary["targets_met"].values())
    summary["status"] = ("not ready" if not met else "uncertain" if summary["uncertain"] else
                         "partly assessed" if summary["not_assessed"] else "ready")
    summary["ready"] = summary["status"] == "ready"
    return summary
