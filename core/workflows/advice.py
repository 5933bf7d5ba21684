"""The k and epsilon values the dashboard offers, and the verdict's fixes try (:mod:`core.workflows.verdict`), in
order of protection: k from the least to the most protective, epsilon from the most to the least."""

from __future__ import annotations

K_STEPS = (2, 3, 5, 10, 15, 20, 30, 50, 100)
EPSILON_STEPS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
