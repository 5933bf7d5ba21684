"""Regression coefficients, real against avatars (SPEC section 9): the same model fitted with ``statsmodels`` on
WO, on WA and, as the reference for natural variability, on HO; each coefficient with its 95 % interval, the
intervals' overlap (:func:`~core.metrics.analysis.interval_overlap.interval_overlap`) and whether sign and
significance (p < 0.05) agree.

A numeric outcome gets an ordinary least-squares model, a two-valued one a logistic model of its second level in
natural order (1 of 0/1, "yes" of no/yes). Rows missing the outcome or a predictor are left out (complete cases);
categorical predictors enter as indicators against their first level in WO; an indicator or number constant or
redundant on one side is left out of that side's model (its coefficient "not estimable" there).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.linalg
import statsmodels.api as sm
from statsmodels.tools.sm_exceptions import ConvergenceWarning, PerfectSeparationWarning

from core.dataset import Kind
from core.errors import InputError
from core.i18n import N_, Message, _, ngettext
from core.metrics.analysis import ON_SIDE, SIDES
from core.metrics.analysis.design import (
    LEFT_OUT,
    MAX_LEVELS,
    checked_predictors,
    default_predictors,
    design,
    ordered_levels,
    readable_numbers,
)
from core.metrics.analysis.interval_overlap import SIGNIFICANCE, ComparedEstimate, Estimate

INTERCEPT = N_("(intercept)")  # a term's name, as the JSON has it: shown translated, with _()
NOT_ESTIMABLE = {  # terms a side's model left out
    "real": N_("On the real rows, not estimable (constant, or redundant with other predictors, in the complete rows): "
               "{terms}."),
    "avatars": N_("On the avatars, not estimable (constant, or redundant with other predictors, in the complete "
                  "rows): {terms}."),
    "holdout": N_("On the holdout, not estimable (constant, or redundant with other predictors, in the complete "
                  "rows): {terms}."),
}


def significant_sign_change(real: Estimate, other: Estimate) -> bool:
    """The sign differs where at least one side finds an effect (p < 0.05): a flip of noise around 0 is not one."""
    return bool((real.significant or other.significant) and np.sign(real.value) != np.sign(other.value))


@dataclass(frozen=True)
class Coefficient(ComparedEstimate):
    """One coefficient on the three sides: intervals' overlap, and whether sign and significance agree."""

    @property
    def significant_sign_change(self) -> bool | None:
        return None if self.real is None or self.avatars is None else \
            significant_sign_change(self.real, self.avatars)

    @property
    def sign_agrees(self) -> bool | None:
        return None if self.real is None or self.avatars is None else \
            bool(np.sign(self.real.value) == np.sign(self.avatars.value))

    @property
    def significance_agrees(self) -> bool | None:
        return None if self.real is None or self.avatars is None else \
            self.real.significant == self.avatars.significant

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "sign_agrees": self.sign_agrees,
                "significance_agrees": self.significance_agrees}


@dataclass(frozen=True)
class RegressionResult:
    """The coefficients of one model on WO, WA and HO."""

    outcome: str
    model: str  # "linear" or "logistic"
    modelled: str | None  # the outcome's level a logistic model gives the odds of
    predictors: tuple[str, ...]
    rows: dict[str, int]  # complete rows fitted on each side
    coefficients: tuple[Coefficient, ...]
    spreads: dict[str, float] = field(default_factory=dict)  # each numeric term's standard deviation on WO
    reference_levels: dict[str, str] = field(default_factory=dict)  # each categorical predictor's, from WO
    unreliable: tuple[str, ...] = ()  # the sides whose fit did not converge (their intervals mean nothing)
    notes: tuple[str, ...] = ()  # a side that could not be fitted, whose fit is not reliable, or terms left out
    not_applicable: str | None = None  # why no model was fitted

    def _effects(self) -> list[Coefficient]:
        return [coefficient for coefficient in self.coefficients if coefficient.term != INTERCEPT]

    @property
    def mean_overlap(self) -> float | None:
        """The mean overlap of the predictors' coefficients (the intercept apart), real against avatars."""
        return _mean([coefficient.overlap for coefficient in self._effects()])

    @property
    def reference_mean_overlap(self) -> float | None:
        """The same mean, real against the holdout: how far two real samples differ."""
        return _mean([coefficient.reference_overlap for coefficient in self._effects()])

    @property
    def agreements(self) -> dict[str, int]:
        """Of the predictors' coefficients estimated on the real rows and the avatars, how many keep their
        significance (p < 0.05 on both or on neither), and how many change sign where one side finds an effect
        (significant); the same counts for the holdout, the reference."""
        counts = {}
        for side, prefix in (("avatars", ""), ("holdout", "reference_")):
            both = [(c.real, getattr(c, side)) for c in self._effects()
                    if c.real is not None and getattr(c, side) is not None]
            counts[f"{prefix}compared"] = len(both)
            counts[f"{prefix}same_significance"] = sum(
                int(real.significant == other.significant) for real, other in both)
            counts[f"{prefix}significant_sign_changes"] = sum(
                int(significant_sign_change(real, other)) for real, other in both)
        return counts

    def to_json(self) -> dict[str, object]:
        return {"outcome": self.outcome, "model": self.model, "modelled": self.modelled,
                "predictors": list(self.predictors), "rows": self.rows, "spreads": self.spreads,
                "reference_levels": self.reference_levels, "unreliable": list(self.unreliable),
                "mean_overlap": self.mean_overlap, "reference_mean_overlap": self.reference_mean_overlap,
                "agreements": self.agreements, "coefficients": [c.to_json() for c in self.coefficients],
                "notes": list(self.notes), "not_applicable": self.not_applicable}


def _mean(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return float(np.mean(present)) if present else None


def regression(working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind],
               outcome: str, predictors: Sequence[str] | None = None) -> RegressionResult:
    """Fit the outcome's model on WO, WA and HO (typed frames, the columns of ``kinds``)."""
    if outcome not in kinds:
        raise InputError(_("The outcome '{column}' is not a column of the table: check its spelling.").format(
            column=outcome))
    left_out: dict[str, str] = {}
    if predictors is None:
        predictors, left_out = default_predictors(kinds, working, outcome)
    predictors = tuple(predictors)
    unknown = [name for name in predictors if name not in kinds or name == outcome]
    if unknown or not predictors:
        raise InputError(_("The predictors must be other columns of the table than the outcome, got {got}.").format(
            got=unknown or "()"))
    checked_predictors(working, predictors, kinds, MAX_LEVELS)
    frames = dict(zip(SIDES, (working, avatars, holdout), strict=True))
    modelled = None
    if kinds[outcome] is Kind.CATEGORICAL:
        outcome_levels = ordered_levels(working[outcome], avatars[outcome])
        if len(outcome_levels) != 2:
            return RegressionResult(outcome, "none", None, predictors, {}, (), not_applicable=ngettext(
                "Regression coefficients need a numeric or two-valued outcome; '{column}' has {count} value.",
                "Regression coefficients need a numeric or two-valued outcome; '{column}' has {count} values.",
                len(outcome_levels)).format(column=outcome, count=len(outcome_levels)))
        modelled = outcome_levels[1]
    elif working[outcome].nunique() < 2:
        return RegressionResult(outcome, "none", None, predictors, {}, (), not_applicable=Message(N_(
            "The outcome '{column}' takes a single value in the real rows: there is no regression to fit."), 
            column=outcome))
    levels = {name: ordered_levels(working[name]) for name in predictors if kinds[name] is Kind.CATEGORICAL}
    terms = [INTERCEPT, *design(working.iloc[:0], predictors, kinds, levels).columns]
    if len(terms) == 1:
        return RegressionResult(outcome, "none", None, predictors, {}, (), not_applicable=Message(N_(
            "Every predictor takes a single value in the real rows: there is no effect to compare.")))
    fits, rows, notes, spreads, unreliable = {}, {}, [], {}, []
    for side, frame in frames.items():
        target = readable_numbers(frame[outcome]) if modelled is None else np.where(
            frame[outcome].notna(), (frame[outcome].astype(object).astype(str) == modelled).to_numpy(float), np.nan)
        features = design(frame, predictors, kinds, levels)
        fits[side], rows[side], note = _fit(target, features, modelled is not None)
        if note:
            notes.append(Message(ON_SIDE[side], note=note))
            unreliable += [side] if fits[side] else []
        not_estimable = [term for term in features.columns if fits[side] and term not in fits[side]]
        if not_estimable:
            notes.append(Message(NOT_ESTIMABLE[side], terms=", ".join(not_estimable)))
        if side == "real":
            numeric = [name for name in predictors if kinds[name] is not Kind.CATEGORICAL]
            spreads = {name: float(np.nanstd(features[name])) for name in numeric}
    coefficients = tuple(Coefficient(term, *(fits[side].get(term) for side in SIDES)) for term in terms)
    if left_out:
        notes.append(Message(LEFT_OUT, columns=", ".join(f"{name} ({other})" for name, other in left_out.items())))
    return RegressionResult(outcome, "linear" if modelled is None else "logistic", modelled, predictors, rows,
                            coefficients, spreads, {name: values[0] for name, values in levels.items() if values},
                            tuple(unreliable), tuple(notes))


def _fit(target: np.ndarray, features: pd.DataFrame, logistic: bool) -> tuple[dict[str, Estimate], int, str | None]:
    """The estimates of one side, the complete rows it used, and what went wrong (None)."""
    complete = np.isfinite(target) & np.isfinite(features.to_numpy(dtype=float)).all(axis=1)
    y, x = target[complete], features.loc[complete].to_numpy(dtype=float)
    if len(y) < 3 or (logistic and len(set(y)) < 2):
        return {}, int(len(y)), (Message(N_("too few complete rows with both outcomes to fit the model.")) if logistic
                                 else Message(N_("too few complete rows to fit the model.")))
    kept = _independent(x)
    exog = np.column_stack([np.ones(len(y)), x[:, kept]])
    names = [INTERCEPT, *features.columns[kept]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fitted = (sm.Logit(y, exog).fit(disp=0, maxiter=200) if logistic else sm.OLS(y, exog).fit())
        except np.linalg.LinAlgError:
            return {}, int(len(y)), Message(N_("the model could not be fitted (its predictors are redundant)."))
    intervals = fitted.conf_int(SIGNIFICANCE)
    estimates = {name: Estimate(float(fitted.params[i]), float(intervals[i, 0]), float(intervals[i, 1]),
                                float(fitted.pvalues[i])) for i, name in enumerate(names)}
    unreliable = any(issubclass(warning.category, (ConvergenceWarning, PerfectSeparationWarning))
                     for warning in caught)
    return estimates, int(len(y)), (Message(N_("the logistic model did not converge (a predictor separates the "
                                               "outcome): its intervals are not reliable.")) if unreliable else None)


def _independent(x: np.ndarray) -> np.ndarray:
    """The columns of ``x`` that are neither constant nor a combination of others (and of the intercept), in their
    order: a pivoted QR of the centred columns."""
    if x.shape[1] == 0:
        return np.arange(0)
    centred = x - x.mean(axis=0)
    scale = np.abs(centred).max(axis=0)
    varying = scale > 0
    columns = np.flatnonzero(varying)
    if columns.size == 0:
        return columns
    _, r, pivot = scipy.linalg.qr(centred[:, columns] / scale[columns], mode="economic", pivoting=True)
    diagonal = np.abs(np.diag(r))
    rank = int((diagonal > diagonal[0] * max(x.shape) * np.finfo(float).eps * 100).sum())
    return np.sort(columns[pivot[:rank]])
