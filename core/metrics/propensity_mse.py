"""The propensity score's utility, ``pMSE`` and ``S_pMSE`` (Snoke, Raab, Nowok, Dibben and Slavkovic, *General and
specific utility measures for synthetic data*, JRSS A, 2018; the R package synthpop's ``utility.gen``; issue 50).

Originals and avatars stacked, a logistic regression told which is which on every column (main effects: numbers
standardised on the originals with a missing indicator, categories one-hot with missing a level of its own, the
``MAX_LEVELS`` most frequent kept and the rest pooled); ``pMSE = mean((p_i - c)^2)`` over the ``N`` stacked rows,
``c`` the avatars' share; ``S_pMSE`` the pMSE over ``(k - 1)(1 - c)^2 c / N``, ``k`` the model's parameters (the
intercept included), as synthpop's ``utility.gen`` with ``method = "logit"`` and ``maxorder = 0`` computes it: its
expectation for rows synthesised from the correct model (Snoke et al.). Two independent samples of one population
read ``1 / (1 - c)`` on that scale (2 at equal sizes; tested): the reading takes the avatars as such a second sample,
``N pMSE / (c (1 - c))`` against a chi-square with ``k - 1`` degrees of freedom, "indistinguishable" at a p-value of
5 % and above. Beside it, the same between the originals and the holdout: what two real samples give. At most
``SAMPLE_ROWS`` rows of each side, drawn once with a fixed seed (the same figure every run).
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import linalg
from scipy.linalg import LinAlgWarning
from threadpoolctl import threadpool_limits

from core.dataset import Kind
from core.engine.encoding import TableCodec
from core.i18n import N_
from core.metrics.definition import SIGNAL, MetricDefinition
from core.metrics.result import MetricResult
from core.metrics.sampling import PROPENSITY_STREAMS, fixed_sample

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.metrics.context import SignalContext

MAX_LEVELS = 30
SAMPLE_ROWS = 20_000
SIGNIFICANCE = 0.05
INDISTINGUISHABLE, DISTINGUISHABLE = N_("indistinguishable"), N_("distinguishable")
DEFINITION = MetricDefinition(
    name="propensity_mse", label=N_("Propensity score (S_pMSE)"), unit="", goal="minimize", bounds=(0.0, None),
    criterion=SIGNAL,
    interpretation=N_("How well a model tells avatars from real rows (synthpop's S_pMSE): about 1 for rows "
                      "synthesised from the right model, about 2 for a second real sample of the same size, larger "
                      "the more they can be told apart. Read as indistinguishable when chance explains it (5 % test)."),
    computation=N_("Real rows and avatars stacked; a logistic regression on every column predicts which is which; "
                   "pMSE = mean of (p - c)^2, c the avatars' share; S_pMSE = pMSE / ((k - 1)(1 - c)^2 c / N), k the "
                   "model's parameters, N the rows (Snoke et al., 2018); the p-value of N pMSE / (c (1 - c)) from "
                   "the chi-square with k - 1 degrees of freedom."),
)


def design(frames: list[pd.DataFrame], kinds: Mapping[str, Kind]) -> list[np.ndarray]:
    """Each frame's main-effect columns, coded on the first: numbers standardised (a missing indicator and 0 where
    missing, when any is), categories one-hot on the ``MAX_LEVELS`` most frequent levels, the rest and missing
    values two more levels."""
    codec = TableCodec(kinds).fit(frames[0])
    tables = [codec.encode(frame) for frame in frames]
    first = tables[0]
    columns: list[list[np.ndarray]] = [[] for _ in frames]
    for j in range(first.numeric.shape[1]):
        observed = first.numeric[:, j][np.isfinite(first.numeric[:, j])]
        size = float(np.abs(observed).max(initial=0.0)) or 1.0  # numbers near 1e200 square beyond float64
        mean, scale = (float((observed / size).mean()), float((observed / size).std()) or 1.0) if observed.size \
            else (0.0, 1.0)
        missing_any = any(np.isnan(table.numeric[:, j]).any() for table in tables)
        for out, table in zip(columns, tables, strict=True):
            values = table.numeric[:, j] / size
            finite = np.isfinite(values)
            out.append(np.where(finite, (np.where(finite, values, mean) - mean) / scale, 0.0))
            if missing_any:
                out.append((~finite).astype(float))
    for j in range(first.codes.shape[1]):
        counts = np.bincount(first.codes[:, j][first.codes[:, j] >= 0], minlength=len(first.categories[j]))
        kept = np.argsort(-counts, kind="stable")[:MAX_LEVELS]
        lookup = np.full(len(first.categories[j]) + 1, len(kept))  # a level not kept: pooled
        lookup[kept] = np.arange(len(kept))
        lookup[-1] = len(kept) + 1  # code -1, missing
        for out, table in zip(columns, tables, strict=True):
            out.append(np.eye(len(kept) + 2)[lookup[table.codes[:, j]]][:, 1:])  # the first kept level: reference
    return [np.column_stack(out) if out else np.empty((len(frame), 0)) for out, frame in zip(columns, frames,
                                                                                            strict=True)]


def propensity(originals: np.ndarray, synthetic: np.ndarray) -> dict[str, float]:
    """``pMSE``, ``S_pMSE`` and the p-value of a logistic regression separating the two designs' rows; on one BLAS
    thread: products of tens of columns are quicker on one (0.13 s against 0.25 s on two cores at 20 000 rows a
    side), and a second thread waiting for a busy core made them 30 times slower (4.5 s)."""
    with threadpool_limits(1, user_api="blas"):
        return _propensity(originals, synthetic)


def _propensity(originals: np.ndarray, synthetic: np.ndarray) -> dict[str, float]:
    from scipy import stats  # here: a run that measures nothing does not import them (0.5 s of a plain run)
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    features = _identified(np.vstack([originals, synthetic]))
    labels = np.r_[np.zeros(len(originals)), np.ones(len(synthetic))]
    n, share = len(labels), len(synthetic) / len(labels)
    with warnings.catch_warnings():  # a separation the solver cannot end: its best fit, as R's glm gives it
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", LinAlgWarning)
        model = LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-10, max_iter=200).fit(
            features, labels) if features.shape[1] else None
    scores = model.predict_proba(features)[:, 1] if model is not None else np.full(n, share)
    pmse = float(np.mean((scores - share) ** 2))
    degrees = features.shape[1]  # k - 1: the parameters but the intercept
    expected = degrees * (1 - share) ** 2 * share / n
    if degrees == 0:
        return {"pMSE": pmse, "S_pMSE": float("nan"), "p_value": 1.0, "parameters": 1}
    statistic = n * pmse / ((1 - share) * share)  # two samples of one population: chi-square, k - 1 degrees
    return {"pMSE": pmse, "S_pMSE": pmse / expected, "p_value": float(stats.chi2.sf(statistic, degrees)),
            "parameters": degrees + 1}


def _identified(features: np.ndarray) -> np.ndarray:
    """The columns whose coefficients the data identify, as R's ``glm`` keeps them (synthpop counts ``k`` on those):
    centred, a rank-revealing QR keeps the first independent ones (a constant column, one that others sum to,
    leave)."""
    centred = features - features.mean(axis=0)
    if centred.shape[1] == 0:
        return features
    r, pivots = linalg.qr(centred, mode="r", pivoting=True)
    diagonal = np.abs(np.diag(r))
    rank = int(np.sum(diagonal > diagonal.max(initial=0.0) * max(centred.shape) * np.finfo(float).eps))
    return features[:, np.sort(pivots[:rank])]


def compute(context: SignalContext) -> MetricResult:
    """S_pMSE of the avatars against the originals, the holdout's beside it."""
    working, avatars, holdout_stream = PROPENSITY_STREAMS
    sides = [_sample(context.working, working), _sample(context.avatars, avatars)]
    holdout = _sample(context.holdout, holdout_stream) if context.holdout is not None and len(context.holdout) \
        else None
    columns = [name for name in context.working.columns if name in context.kinds]
    designs = design([frame[columns] for frame in [*sides, *([holdout] if holdout is not None else [])]],
                     {name: context.kinds[name] for name in columns})
    measures = propensity(designs[0], designs[1])
    breakdown: dict[str, float | str] = {**measures, "rows_each_side": min(len(sides[0]), len(sides[1]))}
    if holdout is not None:
        reference = propensity(designs[0], designs[2])
        breakdown.update({"holdout_S_pMSE": reference["S_pMSE"], "holdout_p_value": reference["p_value"]})
    if not np.isfinite(measures["S_pMSE"]):
        return DEFINITION.result(None, not_applicable=N_("Not applicable: no column varies."))
    reading = INDISTINGUISHABLE if measures["p_value"] >= SIGNIFICANCE else DISTINGUISHABLE
    result = DEFINITION.result(measures["S_pMSE"], breakdown=breakdown)
    return replace(result, band=reading, level="good" if reading == INDISTINGUISHABLE else "poor")


def _sample(frame: pd.DataFrame, stream: int) -> pd.DataFrame:
    """At most ``SAMPLE_ROWS`` rows of ``frame``, drawn with seed ``(0, stream)``: the same rows every run."""
    rows = fixed_sample(len(frame), SAMPLE_ROWS, stream)
    return frame if rows is None else frame.iloc[rows]
