"""What to try when a privacy target is missed, in plain words."""

from __future__ import annotations

from core.metrics.evaluation import Evaluation


def privacy_advice(evaluation: Evaluation, method: str) -> list[str]:
    """One sentence per missed target, saying which knob to turn; empty when every applicable target is met."""
    privacy = evaluation.privacy
    failed = {name for name, result in privacy.items() if result.passed is False}
    advice = []
    stronger = (
        "raise k (for example from 5 to 20): each avatar then mixes more people"
        if method == "avatar" else
        "lower epsilon (for example from 10 to 1): more noise keeps the avatars away from real people"
    )
    if failed & {"hidden_rate", "local_cloaking"}:
        advice.append(f"Too many people can be linked to their own avatar: {stronger}.")
    if failed & {"distance_to_closest", "closest_distances_ratio"}:
        advice.append(f"Some avatars sit very close to one real person: {stronger}.")
    if "row_direct_match_protection" in failed:
        advice.append(
            f"Some real rows appear, identical, among the avatars: {stronger}, or drop the columns that make rows "
            "unique (identifiers, exact dates)."
        )
    if "column_direct_match_protection" in failed:
        rows = privacy["column_direct_match_protection"].breakdown.get("per_variable", [])
        weakest = min(rows, key=lambda row: row["protection"])["variable"] if rows else "a column"
        advice.append(
            f"Avatars copy '{weakest}' from their own original too often: exclude or drop it on the Data page, "
            f"or {stronger}."
        )
    return advice
