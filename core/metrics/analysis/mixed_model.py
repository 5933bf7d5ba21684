"""A variable's trend over time, real against avatars (SPEC 13, analysis): a linear mixed-effects model of each
person's measures, ``value = (b0 + u0_person) + (b1 + u1_person) time + e``, a random intercept and a random slope
per person (``statsmodels`` MixedLM, REML), fitted on the real persons the avatars were made from, on the avatars
and, as the reference for natural variability, on the holdout (or the other half of the persons); the fixed slope
``b1`` with its 95 % interval on each side, per group when one is chosen (the model fitted within each group, a
person's group being constant), compared by interval overlap
(:func:`~core.metrics.analysis.interval_overlap.interval_overlap`).

The time is each person's time since their first measure (in days for dates), divided by its standard deviation
for the fit and the slope scaled back: on days as written, the optimiser stopped short on 600 persons (an interval
20 times too wide); scaled, it converges (:data:`OPTIMISERS` in turn). A side whose random slopes cannot be estimated (too few persons with two
times) is fitted with a random intercept only, said in a note.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.i18n import N_, Message
from core.metrics.analysis import ON_SIDE, SIDES
from core.metrics.analysis.interval_overlap import ComparedEstimate, Estimate

SLOPE_VARIANCE_ERRORS = 2  # a random slopes' variance within this many standard errors of 0 is taken as 0
PERSON, TIME = "__person__", "__time__"  # the frames' columns of each measure's person and time since the first
MIN_PERSONS = 3
ALL = N_("all persons")
OPTIMISERS = ("lbfgs", "bfgs", "powell")  # tried in turn until one converges (a random slope of variance 0, the
# diet arm of the follow-up demo: L-BFGS stopped short, BFGS converged to the same slope)  # the one slope without a group: this term, shown translated


@dataclass(frozen=True)
class MixedModelResult:
    """The slope of ``value`` over ``time`` (per ``unit``) on the three sides, once or per level of ``group``."""

    value: str
    time: str
    unit: str  # "day" for dates, "" for times as written
    group: str | None
    persons: dict[str, int]  # persons fitted on each side
    slopes: tuple[ComparedEstimate, ...]  # term: the group's level, or ALL
    unreliable: tuple[str, ...] = ()  # the sides whose fit did not converge
    notes: tuple[str, ...] = ()
    not_applicable: str | None = None

    @property
    def mean_overlap(self) -> float | None:
        return _mean([slope.overlap for slope in self.slopes])

    @property
    def reference_mean_overlap(self) -> float | None:
        return _mean([slope.reference_overlap for slope in self.slopes])

    def to_json(self) -> dict[str, object]:
        return {"value": self.value, "time": self.time, "unit": self.unit, "group": self.group,
                "persons": self.persons, "mean_overlap": self.mean_overlap,
                "reference_mean_overlap": self.reference_mean_overlap, "unreliable": list(self.unreliable),
                "slopes": [slope.to_json() for slope in self.slopes], "notes": [str(note) for note in self.notes],
                "not_applicable": self.not_applicable}


def _mean(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return float(np.mean(present)) if present else None


def mixed_model(working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame, value: str, *, time: str,
                unit: str = "", group: str | None = None) -> MixedModelResult:
    """The slope of the numeric column ``value`` on WO, WA and HO, long frames of measures with their
    :data:`PERSON` and :data:`TIME` (since the person's first measure) and the ``group`` column when chosen."""
    frames = dict(zip(SIDES, (working, avatars, holdout), strict=True))
    levels = [ALL] if group is None else sorted(working[group].dropna().astype(str).unique())
    fitted: dict[str, dict[str, Estimate | None]] = {side: {} for side in SIDES}
    persons, notes, unreliable = {}, [], []
    for side, frame in frames.items():
        persons[side] = int(frame.loc[frame[value].notna(), PERSON].nunique())
        for level in levels:
            rows = frame if group is None else frame[frame[group].astype("string") == level]
            fitted[side][level], note, converged = _slope(rows, value)
            if note:
                notes.append(Message(ON_SIDE[side], note=note if group is None else Message(
                    N_("{group} = {level}: {note}"), group=group, level=level, note=note)))
            if not converged and side not in unreliable:
                unreliable.append(side)
    slopes = tuple(ComparedEstimate(level, *(fitted[side][level] for side in SIDES)) for level in levels)
    if all(slope.real is None for slope in slopes):
        return MixedModelResult(value, time, unit, group, persons, slopes, tuple(unreliable), tuple(notes),
                                not_applicable=Message(N_("The trend of '{value}' over time could not be fitted on the "
                                                          "real rows (see below)."), value=value))
    return MixedModelResult(value, time, unit, group, persons, slopes, tuple(unreliable), tuple(notes))


def _slope(frame: pd.DataFrame, value: str) -> tuple[Estimate | None, Message | None, bool]:
    """One side's fixed slope (per unit of time) with its interval, what went wrong, and whether it converged."""
    complete = frame[[PERSON, TIME, value]].dropna()
    y, t = complete[value].to_numpy(dtype=float), complete[TIME].to_numpy(dtype=float)
    groups = complete[PERSON].to_numpy()
    scale = float(t.std())
    if pd.unique(groups).size < MIN_PERSONS or not scale > 0:
        return None, Message(N_("too few persons with measures at different times to fit a trend.")), True
    exog = np.column_stack([np.ones_like(t), t / scale])
    several = pd.Series(t).groupby(groups).nunique().to_numpy() >= 2
    note = None
    if several.sum() < MIN_PERSONS:  # random slopes need persons followed over time
        exog_re, note = exog[:, :1], Message(N_("random intercepts only: too few persons with two times or more."))
    elif not slope_variance(groups, t / scale, y) > 0:
        exog_re, note = exog[:, :1], Message(N_("random intercepts only: the persons' own slopes differ no more than "
                                                "their measurement noise explains."))
    else:
        exog_re = exog
    import statsmodels.api as sm  # here: its import costs every command that does not fit a trend

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence is read from the fit, said in a note
        try:
            fit = sm.MixedLM(y, exog, groups=groups, exog_re=exog_re).fit(reml=True, method=list(OPTIMISERS))
        except (np.linalg.LinAlgError, ValueError):
            return None, Message(N_("the model could not be fitted (the measures are constant or too few).")), True
    low, high = (bound / scale for bound in np.asarray(fit.conf_int())[1])
    estimate = Estimate(float(fit.params[1] / scale), float(low), float(high), float(fit.pvalues[1]))
    if not np.isfinite([estimate.value, estimate.low, estimate.high]).all():
        return None, Message(N_("the model could not be fitted (the measures are constant or too few).")), True
    converged = bool(fit.converged)
    if not converged:
        note = Message(N_("the fit did not converge: its interval is not reliable."))
    return estimate, note, converged


def slope_variance(groups: np.ndarray, t: np.ndarray, y: np.ndarray) -> float:
    """The moment estimate of the random slopes' variance: the variance of the persons' own least-squares slopes
    less the mean of their sampling variances, ``var(b_i) - mean(s^2 / Sxx_i)``, ``s^2`` the residual variance
    pooled over the persons of three times or more (NaN without two such persons); 0 when it is within
    :data:`SLOPE_VARIANCE_ERRORS` standard errors of 0 (that of a sample variance, ``var(b_i) sqrt(2 / (n - 1))``).
    At 0 the slopes differ no more than noise explains: the random-slope model sits on its boundary, where its
    optimisers stall (2 500 persons of one slope each: 57 s and three optimisers, or 82 s for an estimate of 0.002
    within its error, against 3 s for random intercepts, the same slope)."""
    codes, persons = pd.factorize(groups)
    counts = np.bincount(codes)
    mean_t = np.bincount(codes, weights=t) / counts
    mean_y = np.bincount(codes, weights=y) / counts
    dt, dy = t - mean_t[codes], y - mean_y[codes]
    sxx = np.bincount(codes, weights=dt * dt)
    sxy = np.bincount(codes, weights=dt * dy)
    syy = np.bincount(codes, weights=dy * dy)
    fitted = (counts >= 3) & (sxx > 0)
    if fitted.sum() < 2:
        return float("nan")
    slopes = sxy[fitted] / sxx[fitted]
    residual = (syy[fitted] - slopes * sxy[fitted]).sum() / (counts[fitted] - 2).sum()
    spread = float(np.var(slopes, ddof=1))
    excess = spread - float(np.mean(residual / sxx[fitted]))
    return excess if excess > SLOPE_VARIANCE_ERRORS * spread * np.sqrt(2 / (len(slopes) - 1)) else min(excess, 0.0)
