"""What the user asks the analyses of SPEC section 9 to answer, and running them: prediction and regression of an
outcome, survival from a time and an event, statistics by group, and always each variable's missing share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields

import pandas as pd

from core.dataset import Kind
from core.errors import InputError
from core.i18n import N_, _
from core.metrics.analysis.group_statistics import GroupStatisticsResult, group_statistics
from core.metrics.analysis.missing_shares import MissingShares, missing_shares
from core.metrics.analysis.prediction import MODELS, PredictionResult, prediction
from core.metrics.analysis.regression import RegressionResult, regression
from core.metrics.analysis.survival import SurvivalResult, survival

ANALYSES = ("prediction", "regression", "survival", "group_statistics", "missing_shares")
TITLES = {"prediction": N_("Prediction"), "regression": N_("Regression coefficients"), "survival": N_("Survival"),
          "group_statistics": N_("Group statistics"), "missing_shares": N_("Missing values")}
OPTIONS_HELP = ("outcome=NAME [predictors=A,B] [model=boosting|linear] [time=NAME event=NAME] [group=NAME] "
                "[event_value=VALUE] [covariate=NAME] [adjust=A,B] [value=NAME]")


@dataclass(frozen=True)
class AnalysisRequest:
    """The columns the analyses use; an analysis runs when its columns are named (``missing_shares`` always)."""

    outcome: str | None = None
    predictors: tuple[str, ...] | None = None  # None: every other column
    model: str = "boosting"
    time: str | None = None
    event: str | None = None
    event_value: str | None = None  # which of the event column's two values is the event; default: by its name
    group: str | None = None  # the survival curves' groups and the group statistics' categorical
    covariate: str | None = None  # the hazard ratio's; default: the group
    adjust: tuple[str, ...] = ()  # other covariates of the Cox model
    value: str | None = None  # the group statistics' number; default: every numeric column

    @classmethod
    def from_options(cls, options: Mapping[str, str] | Iterable[tuple[str, str]]) -> AnalysisRequest:
        """The request of ``--analysis KEY=VALUE ...`` (``predictors`` and ``adjust`` comma-separated; names read
        without the spaces around them, as the table's header is)."""
        pairs = list(options.items()) if isinstance(options, Mapping) else list(options)
        names = [field.name for field in fields(cls)]
        for position, (key, value) in enumerate(pairs):
            if key not in names:
                raise InputError(f"--analysis takes {OPTIONS_HELP}; got '{key}='.")
            if any(other == key for other, _ in pairs[:position]):
                raise InputError(f"--analysis {key}= is given twice: keep one.")
            if not value.strip():
                raise InputError(f"--analysis {key}= is empty: name a column (or leave the key out).")
        options = {key: value.strip() for key, value in pairs}
        lists = {key: _names(options[key]) for key in ("predictors", "adjust") if key in options}
        for key, chosen in lists.items():
            twice = next((name for position, name in enumerate(chosen) if name in chosen[:position]), None)
            if twice is not None:
                raise InputError(f"--analysis {key}: '{twice}' is named twice: name each column once.")
        # the keys are the fields' (checked above): text, and tuples for predictors and adjust
        return cls(**{**options, **lists})  # type: ignore[arg-type]

    def checked(self, columns: Iterable[str], left_out: Mapping[str, str] | None = None) -> AnalysisRequest:
        """Itself when every column it names is one of ``columns`` and its options go together, else the
        :class:`InputError` that says which is wrong (before any work); ``left_out`` says why a column of the table
        is not among ``columns`` (an identifier, a column the avatars lack)."""
        columns, left_out = set(columns), left_out or {}
        if self.model not in MODELS:
            raise InputError(f"--analysis model must be one of {', '.join(MODELS)}, got {self.model!r}.")
        if (self.time is None) != (self.event is None):
            raise InputError("--analysis time= and event= go together: name the time column and the event column.")
        needs = {"predictors": ("outcome", self.predictors is not None), "model": ("outcome", self.model != "boosting"),
                 "covariate": ("time", self.covariate is not None), "adjust": ("time", bool(self.adjust)),
                 "event_value": ("time", self.event_value is not None), "value": ("group", self.value is not None)}
        for key, (needed, given) in needs.items():
            if given and getattr(self, needed) is None:
                raise InputError(f"--analysis {key}= needs {needed}=: it does nothing without it.")
        if self.adjust and self.covariate is None and self.group is None:
            raise InputError("--analysis adjust= needs covariate= (or group=): the hazard ratio it adjusts.")
        if self.outcome is not None and self.outcome in (self.predictors or ()):
            raise InputError(f"--analysis predictors: '{self.outcome}' is the outcome: it cannot predict itself.")
        named = [(key, getattr(self, key)) for key in ("outcome", "time", "event", "group", "covariate", "value")]
        named += [("predictors", name) for name in self.predictors or ()]
        named += [("adjust", name) for name in self.adjust]
        for key, name in named:
            if name is not None and name not in columns:
                why = left_out.get(name, "is not a column of the table: check its spelling")
                raise InputError(f"--analysis {key}: '{name}' {why}.")
        return self

    def names(self) -> tuple[str, ...]:
        """The analyses this request asks for, in the order of :data:`ANALYSES`."""
        asked = {"prediction": self.outcome is not None, "regression": self.outcome is not None,
                 "survival": self.time is not None, "group_statistics": self.group is not None,
                 "missing_shares": True}
        return tuple(name for name in ANALYSES if asked[name])

    def to_json(self) -> dict[str, object]:
        return {field.name: (list(value) if isinstance(value := getattr(self, field.name), tuple) else value)
                for field in fields(self) if getattr(self, field.name) not in (None, ())}


def _names(text: str) -> tuple[str, ...]:
    """``"a, b,c"`` as ``("a", "b", "c")``."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


NEEDED = {"prediction": ("outcome",), "regression": ("outcome",), "survival": ("time", "event"),
          "group_statistics": ("group",)}
NEEDED_COLUMNS = {"outcome": N_("an outcome column"), "time": N_("a time column"), "event": N_("an event column"),
                  "group": N_("a group column")}
TIME_WORDS = ("time", "day", "week", "month", "duration", "stay", "surv", "follow", "delay")
EVENT_WORDS = ("event", "cens", "status", "death", "died", "dead", "relapse", "failure", "progress")
OUTCOME_WORDS = ("outcome", "target", "label", "response", "readmi", "mortal", "diagnos", "disease", "result", *EVENT_WORDS)
GROUP_WORDS = ("arm", "treat", "group", "cohort", "department", "sex", "gender")
MAX_SUGGESTED_GROUPS = 10


def suggested_request(frame: pd.DataFrame, kinds: Mapping[str, Kind]) -> AnalysisRequest:
    """A first guess at the study, from the columns alone, or nothing where the columns do not say (the dashboard's
    defaults, to be changed): the outcome a two-valued column named like one (outcome, readmitted, status, death...),
    else a number named like one; the time a number named like one (days, stay, survival...) with an event a
    two-valued column named like one (cens, status, death...), or neither; the group a categorical of 2 to 10 values
    named like an arm or a group (arm, treatment, group, sex...); the number compared by group the outcome or the
    time when it is a number. The predictors are the analyses' own default (:func:`~core.metrics.analysis.design.
    default_predictors`: never one that determines the outcome). A study a statistician would not accept (a yes/no column that happens to be last, an
    age as the time of a survival, a date averaged by group) is never guessed: the forms then wait for a choice."""
    distinct = {name: frame[name].nunique() for name in kinds}
    two_valued = [name for name in kinds if distinct[name] == 2]
    numbers = [name for name in kinds if kinds[name] is Kind.NUMERIC and distinct[name] > 2]
    outcome = next((name for name in (*two_valued, *numbers) if _named_like(name, OUTCOME_WORDS)), None)
    time = next((name for name in numbers if _named_like(name, TIME_WORDS)), None)
    event = next((name for name in two_valued if _named_like(name, EVENT_WORDS)), None)
    time, event = (time, event) if time and event else (None, None)
    groups = [name for name in kinds if kinds[name] is Kind.CATEGORICAL and 2 <= distinct[name] <= MAX_SUGGESTED_GROUPS
              and name not in (outcome, event)]
    group = next((name for word in GROUP_WORDS for name in groups if _named_like(name, [word])), None)
    value = next((name for name in (outcome, time) if name in numbers), None) if group else None
    return AnalysisRequest(outcome=outcome, time=time, event=event, group=group, value=value)


def _named_like(name: str, words: Iterable[str]) -> bool:
    return any(word in str(name).lower() for word in words)


@dataclass(frozen=True)
class AnalysisNotRun:
    """An analysis the data did not allow (an event with one value, an outcome with none...), and why: the other
    analyses and the metrics stand."""

    reason: str
    on_dashboard: str | None = None  # the reason in the dashboard's words, when it says what to do otherwise

    def to_json(self) -> dict[str, object]:
        return {"not_run": self.reason}


AnalysisResult = (PredictionResult | RegressionResult | SurvivalResult | GroupStatisticsResult | MissingShares
                  | AnalysisNotRun)


def run_analysis(name: str, working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame,
                 kinds: Mapping[str, Kind], request: AnalysisRequest, seed: int) -> AnalysisResult:
    """One analysis of ``request`` on WO, HO and WA (typed frames)."""
    missing = [key for key in NEEDED.get(name, ()) if getattr(request, key) is None]
    if missing:
        columns = [_(NEEDED_COLUMNS[key]) for key in missing]
        raise InputError(_("{analysis} needs {column}: choose it.").format(analysis=_(TITLES[name]), column=columns[0])
                         if len(columns) == 1 else
                         _("{analysis} needs {first} and {second}: choose them.").format(
                             analysis=_(TITLES[name]), first=columns[0], second=columns[1]))
    if name == "prediction":
        assert request.outcome is not None  # a NEEDED column: refused above when missing
        return prediction(working, holdout, avatars, kinds, request.outcome, request.predictors, request.model, seed)
    if name == "regression":
        assert request.outcome is not None  # a NEEDED column: refused above when missing
        return regression(working, holdout, avatars, kinds, request.outcome, request.predictors)
    if name == "survival":
        assert request.time is not None and request.event is not None  # a NEEDED column: refused above when missing
        return survival(working, holdout, avatars, kinds, request.time, request.event, request.group,
                        request.covariate, request.adjust, request.event_value)
    if name == "group_statistics":
        assert request.group is not None  # a NEEDED column: refused above when missing
        return group_statistics(working, holdout, avatars, kinds, request.group,
                                None if request.value is None else [request.value])
    if name == "missing_shares":
        return missing_shares(working, holdout, avatars)
    raise ValueError(f"No analysis is called {name!r}; the analyses are {', '.join(ANALYSES)}.")


def run_analyses(working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind],
                 request: AnalysisRequest, seed: int, names: Iterable[str] | None = None,
                 progress: Callable[[str], None] | None = None) -> dict[str, AnalysisResult]:
    """Every analysis of ``names`` (default: the request's), in order; ``progress`` hears each one's name first. One
    that the data do not allow is an :class:`AnalysisNotRun` that says why."""
    results = {}
    for name in request.names() if names is None else names:
        if progress:
            progress(name)
        try:
            results[name] = run_analysis(name, working, holdout, avatars, kinds, request, seed)
        except InputError as error:
            results[name] = AnalysisNotRun(str(error), error.on_dashboard)
    return results
