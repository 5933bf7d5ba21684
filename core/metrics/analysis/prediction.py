"""Prediction, trained on avatars and tested on real people (SPEC section 9): does a model learnt from the avatars
predict as well as one learnt from the real data?

The same scikit-learn model (``HistGradientBoostingClassifier`` / ``Regressor`` by default; logistic or linear
regression on request) is trained on WO and on WA, both scored on HO: ROC AUC for a binary outcome, balanced
accuracy for a categorical one with more values, R^2 for a number; each with a 95 % interval from 200 bootstrap
resamples of the HO rows (seeded; both models scored on the same resamples, each as row counts). Headline: the
avatar model's score as a share of the real model's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler

from core.dataset import Kind
from core.engine.encoding import numeric_values
from core.errors import InputError
from core.i18n import N_, Message, _
from core.metrics.analysis.design import (
    LEFT_OUT,
    MAX_LEVELS,
    SMALLEST_SCALED,
    checked_predictors,
    default_predictors,
)

MODELS = ("boosting", "linear")
BOOTSTRAP_RESAMPLES = 200
BOOSTING_MAX_CATEGORIES = 250  # a category's rarer values grouped beyond this (the trees' bins hold 255)
SCORES = {"binary": N_("ROC AUC"), "multiclass": N_("balanced accuracy"), "numeric": N_("R^2")}  # JSON: shown with _()
NOTHING_TO_PREDICT = {  # the outcome has no value on a side
    "real": N_("The outcome '{column}' has no value in the real rows: there is nothing to predict."),
    "holdout": N_("The outcome '{column}' has no value in the holdout: there is nothing to predict."),
    "avatars": N_("The outcome '{column}' has no value in the avatars: there is nothing to predict."),
}


@dataclass(frozen=True)
class Score:
    """A model's score on HO and its 95 % bootstrap interval."""

    value: float
    low: float
    high: float


@dataclass(frozen=True)
class PredictionResult:
    """The real model's and the avatar model's scores on real people never used, and their ratio."""

    outcome: str
    task: str  # "binary", "multiclass" or "numeric"
    model: str
    predictors: tuple[str, ...]
    real: Score
    avatars: Score
    notes: tuple[str, ...] = ()  # the predictors left out of the default, and why

    @property
    def score_name(self) -> str:
        return SCORES[self.task]

    @property
    def ratio(self) -> float | None:
        """The avatar model's score as a share of the real model's (None when the real model scores 0 or less)."""
        return self.avatars.value / self.real.value if self.real.value > 0 else None

    def to_json(self) -> dict[str, object]:
        return {"outcome": self.outcome, "task": self.task, "score": self.score_name, "model": self.model,
                "predictors": list(self.predictors), "real": vars(self.real), "avatars": vars(self.avatars),
                "ratio": self.ratio}


def prediction(working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind],
               outcome: str, predictors: Sequence[str] | None = None, model: str = "boosting",
               seed: int = 0) -> PredictionResult:
    """Train on WO and on WA, score both on HO (typed frames, the columns of ``kinds``)."""
    if outcome not in kinds:
        raise InputError(_("The outcome '{column}' is not a column of the table: check its spelling.").format(
            column=outcome))
    if model not in MODELS:
        raise InputError(_("The model must be one of {models}, got {model}.").format(models=", ".join(MODELS),
                                                                                     model=repr(model)))
    left_out: dict[str, str] = {}
    if predictors is None:
        predictors, left_out = default_predictors(kinds, working, outcome, max_levels=None)
    predictors = tuple(predictors)
    unknown = [name for name in predictors if name not in kinds or name == outcome]
    if unknown or not predictors:
        raise InputError(_("The predictors must be other columns of the table than the outcome, got {got}.").format(
            got=unknown or "()"))
    checked_predictors(working, predictors, kinds)
    categorical = kinds[outcome] is Kind.CATEGORICAL
    frames = [frame.dropna(subset=[outcome]).reset_index(drop=True) for frame in (working, holdout, avatars)]
    empty = [side for side, frame in zip(("real", "holdout", "avatars"), frames, strict=True) if len(frame) == 0]
    if empty:
        raise InputError(_(NOTHING_TO_PREDICT[empty[0]]).format(column=outcome))
    if frames[0][outcome].nunique() < 2:
        raise InputError(_("The outcome '{column}' takes a single value in the real rows: there is nothing to "
                           "predict.").format(column=outcome))
    classes = sorted(set(frames[0][outcome].astype(str)) | set(frames[2][outcome].astype(str)))
    if categorical and frames[0][outcome].nunique() > MAX_LEVELS:  # as groups are: 1 000 classes ran over 300 s
        raise InputError(_("The outcome '{column}' has {count} values: a prediction is scored for at most {most}; "
                           "choose an outcome with fewer, or group its values.").format(
            column=outcome, count=frames[0][outcome].nunique(), most=MAX_LEVELS))
    task = "numeric" if not categorical else "binary" if len(classes) == 2 else "multiclass"
    features = [_features(frame, predictors, kinds) for frame in frames]
    targets = [frame[outcome].astype(str).to_numpy() if categorical else numeric_values(frame[outcome])
               for frame in frames]
    if not categorical and 0 < (largest := np.max(np.abs(targets[0]))) < SMALLEST_SCALED:
        scale = np.ldexp(1.0, -int(np.frexp(largest)[1]))  # a power of two, exact, that R^2 ignores: values near
        targets = [target * scale for target in targets]  # 1e-300 had squares of 0 ("too large", said the page)
    fitted = [_fitted(model, task, kinds, predictors, x, y)
              for x, y in ((features[0], targets[0]), (features[2], targets[2]))]
    predictions = [_predicted(estimator, task, features[1], classes) for estimator in fitted]
    rng = np.random.default_rng(seed)
    resamples = [rng.integers(0, len(targets[1]), len(targets[1])) for _ in range(BOOTSTRAP_RESAMPLES)]
    real, synthetic = (_score(task, targets[1], predicted, classes, resamples) for predicted in predictions)
    notes = (Message(LEFT_OUT, columns=", ".join(f"{name} ({other})" for name, other in left_out.items())),) \
        if left_out else ()
    return PredictionResult(outcome, task, model, predictors, real, synthetic, notes)


def _features(frame: pd.DataFrame, predictors: Sequence[str], kinds: Mapping[str, Kind]) -> pd.DataFrame:
    """Numbers as floats (dates and durations as seconds), categories as text (missing: NaN)."""
    return pd.DataFrame({name: frame[name].astype(object).where(frame[name].notna(), np.nan).astype(str).where(
        frame[name].notna(), np.nan) if kinds[name] is Kind.CATEGORICAL else numeric_values(frame[name])
        for name in predictors})


def _fitted(model: str, task: str, kinds: Mapping[str, Kind], predictors: Sequence[str], features: pd.DataFrame,
            target: np.ndarray) -> Pipeline | tuple[str, object]:
    """The model fitted on ``features``; a training set with a single class predicts it for everyone."""
    if task != "numeric" and len(set(target)) < 2:
        return ("constant", target[0] if len(target) else None)
    categorical = [name for name in predictors if kinds[name] is Kind.CATEGORICAL]
    numeric = [name for name in predictors if name not in categorical]
    encoder = make_column_transformer(
        (make_pipeline(SimpleImputer(strategy="constant", fill_value="(missing)"),
                       OneHotEncoder(handle_unknown="ignore", min_frequency=5)), categorical),
        (make_pipeline(SimpleImputer(strategy="median", keep_empty_features=True), StandardScaler()), numeric),
    ) if model == "linear" else make_column_transformer(  # the trees split categories natively: no one-hot
        (OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=np.nan, encoded_missing_value=np.nan,
                        max_categories=BOOSTING_MAX_CATEGORIES), categorical),
        ("passthrough", numeric))
    natives = list(range(len(categorical))) or None  # the encoder puts the categories first
    estimator = {("boosting", "numeric"): HistGradientBoostingRegressor(random_state=0, categorical_features=natives),
                 ("linear", "numeric"): LinearRegression()}.get(
        (model, task), HistGradientBoostingClassifier(random_state=0, categorical_features=natives)
        if model == "boosting" else LogisticRegression(max_iter=1_000))
    pipeline = make_pipeline(encoder, estimator)
    empty = [name for name in numeric if features[name].isna().all()]  # no value: constant, as informative
    return pipeline.fit(features.fillna({name: 0.0 for name in empty}), target)


def _predicted(fitted: Pipeline | tuple[str, object], task: str, features: pd.DataFrame, classes: list[str]
               ) -> np.ndarray:
    """Predictions on HO: a number, the probability of ``classes[1]`` (binary), or a class."""
    if isinstance(fitted, tuple):  # a single class seen in training
        constant = fitted[1]
        return np.full(len(features), float(constant == classes[-1])) if task == "binary" else \
            np.full(len(features), constant, dtype=object)
    if task == "binary":
        probabilities = fitted.predict_proba(features)
        seen = list(fitted.classes_)
        return probabilities[:, seen.index(classes[1])] if classes[1] in seen else np.zeros(len(features))
    return fitted.predict(features)


def _score(task: str, truth: np.ndarray, predicted: np.ndarray, classes: list[str],
           resamples: list[np.ndarray]) -> Score:
    """The score on every HO row and its 95 % percentile interval over the bootstrap ``resamples``, each resample
    scored as the rows' counts (:func:`resampled_score`: no copy, no sort per resample)."""
    scorer = resampled_score(task, truth, predicted, classes)
    value = scorer(np.ones(len(truth)))
    draws = np.array([scorer(np.bincount(rows, minlength=len(truth)).astype(float)) for rows in resamples])
    draws = draws[np.isfinite(draws)]
    low, high = (np.percentile(draws, [2.5, 97.5]) if draws.size else (np.nan, np.nan))
    return Score(value, float(low), float(high))


def resampled_score(task: str, truth: np.ndarray, predicted: np.ndarray, classes: list[str]
                    ) -> Callable[[np.ndarray], float]:
    """A function of row counts ``w`` (how often each HO row is drawn) giving the score of the rows so drawn, equal
    to scikit-learn's on the drawn rows: R^2 ``1 - sum w (y - p)^2 / sum w (y - mean_w y)^2``; ROC AUC as the
    Mann-Whitney statistic, ``sum over positives of (negatives scored lower + half the negatives scored equal) /
    (positives x negatives)``, from one grouping of the equal scores; balanced accuracy, the mean over the classes
    drawn of the share of their rows predicted right. NaN where the score is undefined (one class drawn, or every
    drawn number equal: scikit-learn says 0 or 1 there)."""
    if task == "numeric":
        truth, predicted = truth.astype(float), predicted.astype(float)

        def r2(w: np.ndarray) -> float:
            drawn = truth[w > 0]
            if drawn.min() == drawn.max():  # no variance (its float sum may not be exactly 0)
                return np.nan
            mean = np.average(truth, weights=w)
            return 1.0 - np.dot(w, (truth - predicted) ** 2) / np.dot(w, (truth - mean) ** 2)
        return r2
    if task == "binary":
        positive = (truth == classes[1]).astype(float)
        _, group = np.unique(predicted, return_inverse=True)  # equal scores, in increasing order

        def auc(w: np.ndarray) -> float:
            positives = np.bincount(group, weights=w * positive)
            negatives = np.bincount(group, weights=w * (1.0 - positive))
            pairs = positives.sum() * negatives.sum()
            below = np.cumsum(negatives) - negatives
            return float(np.dot(positives, below + 0.5 * negatives) / pairs) if pairs > 0 else np.nan
        return auc
    labels, codes = np.unique(truth.astype(str), return_inverse=True)
    right = (truth.astype(str) == predicted.astype(str)).astype(float)

    def balanced_accuracy(w: np.ndarray) -> float:
        drawn = np.bincount(codes, weights=w, minlength=len(labels))
        correct = np.bincount(codes, weights=w * right, minlength=len(labels))
        return float(np.mean(correct[drawn > 0] / drawn[drawn > 0]))
    return balanced_accuracy
