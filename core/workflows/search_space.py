"""The k and epsilon values the dashboard offers, and the verdict's fixes try (:mod:`core.workflows.verdict`), in
order of protection: k from the least to the most protective, epsilon from the most to the least; and how much
signal a setting may lose against another and still be said to keep it (the verdict's fixes, the sweep's
advice)."""

from __future__ import annotations

K_STEPS = (2, 3, 5, 10, 15, 20, 30, 50, 100)
EPSILON_STEPS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)


def larger_k(k: int | None, n_avatarized: int) -> list[int]:
    """The steps of ``K_STEPS`` above ``k`` (None: all) that ``n_avatarized`` rows allow (``k`` below the rows)."""
    return [step for step in K_STEPS if (k or 0) < step < n_avatarized]

# How far a setting's signal may fall below another's and still "keep the signal": about twice the seed-to-seed
# standard deviation of the avatars at a fixed holdout split, measured with 6 seeds on the demo, AIDS, Wage and
# birthwt tables (Hellinger Mean 0.2 to 0.7, 2.3 on birthwt's 95 rows; Correlation Difference Ratio 2 to 6 for
# Avatar, up to 15 for FastDP). Beyond, the loss is said in numbers.
SIGNAL_SPREAD = {"hellinger_mean": 1.5, "correlation_difference_ratio": 10.0}
