"""What to try when a privacy target is missed, in plain words, computed from the run."""

from __future__ import annotations

from core.metrics.evaluation import Evaluation

K_STEPS = (2, 3, 5, 10, 15, 20, 30, 50, 100)  # the k values the dashboard offers to try, in order
EPSILON_STEPS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)  # the epsilon values, likewise


def stronger_setting(method: str, k: int, epsilon: float, n_avatarized: int) -> str | None:
    """The next more protective value of the method's knob, as an instruction ("raise k from 10 to 15"), or None
    when there is none (k already at its largest, ``n_avatarized - 1``; epsilon at the smallest offered)."""
    if method == "avatar":
        larger = [step for step in K_STEPS if step > k] or [2 * k]
        new_k = min(larger[0], n_avatarized - 1)
        return f"raise k from {k} to {new_k}: each avatar then mixes more people" if new_k > k else None
    smaller = [step for step in EPSILON_STEPS if step < epsilon]
    if not smaller:
        return None
    return f"lower epsilon from {epsilon:g} to {smaller[-1]:g}: more noise keeps the avatars away from real people"


def privacy_advice(evaluation: Evaluation, method: str, k: int = 10, epsilon: float = 1.0) -> list[str]:
    """One sentence per missed target, saying which knob to turn and to what; empty when every applicable target
    is met. ``k`` and ``epsilon`` are the run's."""
    privacy = evaluation.privacy
    failed = {name for name, result in privacy.items() if result.passed is False}
    stronger = stronger_setting(method, k, epsilon, evaluation.rows.get("avatars", k + 2)) or (
        f"k is already at its largest for this table ({k})" if method == "avatar"
        else f"epsilon is already at the smallest value offered ({epsilon:g})"
    ) + "; set aside or drop the columns that make people unique"
    advice = []
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
            f"Avatars copy '{weakest}' from their own original too often: set it aside (re-attached from similar "
            f"people) or drop it, or {stronger}."
        )
    return advice
