"""What the user asks the analyses of SPEC section 9 to answer, and running them: prediction and regression of an
outcome, survival from a time and an event, statistics by group, and always each variable's missing share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields

import pandas as pd

from core.engine.schema import Kind
from core.errors import InputError
from core.metrics.analysis.group_statistics import group_statistics
from core.metrics.analysis.missing_shares import missing_shares
from core.metrics.analysis.prediction import MODELS, prediction
from core.metrics.analysis.regression import regression
from core.metrics.analysis.survival import survival

ANALYSES = ("prediction", "regression", "survival", "group_statistics", "missing_shares")
TITLES = {"prediction": "Prediction", "regression": "Regression coefficients", "survival": "Survival",
          "group_statistics": "Group statistics", "missing_shares": "Missing values"}
OPTIONS_HELP = ("outcome=NAME [predictors=A,B] [model=boosting|linear] [time=NAME event=NAME] [group=NAME] "
                "[covariate=NAME] [adjust=A,B] [value=NAME]")


@dataclass(frozen=True)
class AnalysisRequest:
    """The columns the analyses use; an analysis runs when its columns are named (``missing_shares`` always)."""

    outcome: str | None = None
    predictors: tuple[str, ...] | None = None  # None: every other column
    model: str = "boosting"
    time: str | None = None
    event: str | None = None
    group: str | None = None  # the survival curves' groups and the group statistics' categorical
    covariate: str | None = None  # the hazard ratio's; default: the group
    adjust: tuple[str, ...] = ()  # other covariates of the Cox model
    value: str | None = None  # the group statistics' number; default: every numeric column

    @classmethod
    def from_options(cls, options: Mapping[str, str] | Iterable[tuple[str, str]]) -> AnalysisRequest:
        """The request of ``--analysis KEY=VALUE ...`` (``predictors`` comma-separated)."""
        options = dict(options)
        names = [field.name for field in fields(cls)]
        unknown = [key for key in options if key not in names]
        if unknown:
            raise InputError(f"--analysis takes {OPTIONS_HELP}; got '{unknown[0]}='.")
        lists = {key: _names(options[key]) for key in ("predictors", "adjust") if key in options}
        return cls(**{**options, **lists})

    def checked(self, columns: Iterable[str]) -> AnalysisRequest:
        """Itself when every column it names is one of ``columns`` and its options go together, else the
        :class:`InputError` that says which is wrong (before any work)."""
        columns = set(columns)
        if self.model not in MODELS:
            raise InputError(f"--analysis model must be one of {', '.join(MODELS)}, got {self.model!r}.")
        if (self.time is None) != (self.event is None):
            raise InputError("--analysis time= and event= go together: name the time column and the event column.")
        if self.predictors is not None and self.outcome is None:
            raise InputError("--analysis predictors= needs outcome=: name the column to predict.")
        named = [(key, getattr(self, key)) for key in ("outcome", "time", "event", "group", "covariate", "value")]
        named += [("predictors", name) for name in self.predictors or ()]
        named += [("adjust", name) for name in self.adjust]
        for key, name in named:
            if name is not None and name not in columns:
                raise InputError(f"--analysis {key}: '{name}' is not a column of the table: check its spelling.")
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
TIME_WORDS = ("time", "day", "week", "month", "year", "duration", "stay", "surv", "follow", "delay")
EVENT_WORDS = ("event", "cens", "status", "death", "died", "dead", "relapse", "readmit", "failure", "outcome")
GROUP_WORDS = ("arm", "treat", "group", "cohort", "department", "sex", "gender")
MAX_SUGGESTED_GROUPS = 10


def suggested_request(frame: pd.DataFrame, kinds: Mapping[str, Kind]) -> AnalysisRequest:
    """A first guess at the study, from the columns alone (the dashboard's defaults, to be changed): the outcome is
    the last two-valued column (else the last number); the time a number named like one (days, stay, survival...)
    with an event a two-valued column named like one (cens, status, death...); the group a categorical of 2 to 10
    values, one named like an arm or a group first, and the number compared by group the outcome, the time or the
    first number."""
    distinct = {name: frame[name].nunique() for name in kinds}
    two_valued = [name for name in kinds if distinct[name] == 2]
    numbers = [name for name in kinds if kinds[name] is not Kind.CATEGORICAL and distinct[name] > 2]
    outcome = (two_valued or numbers or [None])[-1]
    time = next((name for name in numbers if _named_like(name, TIME_WORDS)), None)
    event = next((name for name in two_valued if _named_like(name, EVENT_WORDS)), None)
    groups = [name for name in kinds if kinds[name] is Kind.CATEGORICAL and 2 <= distinct[name] <= MAX_SUGGESTED_GROUPS
              and name not in (outcome, event)]
    group = next((name for word in GROUP_WORDS for name in groups if _named_like(name, [word])),
                 groups[0] if groups else None)
    time, event = (time, event) if time and event else (None, None)
    value = next((name for name in (outcome, time, *numbers) if name in numbers), None) if group else None
    return AnalysisRequest(outcome=outcome, time=time, event=event, group=group, value=value)


def _named_like(name: str, words: Iterable[str]) -> bool:
    return any(word in str(name).lower() for word in words)


def run_analysis(name: str, working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame,
                 kinds: Mapping[str, Kind], request: AnalysisRequest, seed: int):
    """One analysis of ``request`` on WO, HO and WA (typed frames)."""
    missing = [key for key in NEEDED.get(name, ()) if getattr(request, key) is None]
    if missing:
        columns = " and ".join(("an " if key[0] in "aeiou" else "a ") + f"{key} column" for key in missing)
        raise InputError(f"{TITLES[name]} needs {columns}: choose {'them' if len(missing) > 1 else 'it'}.")
    if name == "prediction":
        return prediction(working, holdout, avatars, kinds, request.outcome, request.predictors, request.model, seed)
    if name == "regression":
        return regression(working, holdout, avatars, kinds, request.outcome, request.predictors)
    if name == "survival":
        return survival(working, holdout, avatars, kinds, request.time, request.event, request.group,
                        request.covariate, request.adjust)
    if name == "group_statistics":
        return group_statistics(working, holdout, avatars, kinds, request.group,
                                None if request.value is None else [request.value])
    if name == "missing_shares":
        return missing_shares(working, holdout, avatars)
    raise ValueError(f"No analysis is called {name!r}; the analyses are {', '.join(ANALYSES)}.")


@dataclass(frozen=True)
class AnalysisNotRun:
    """An analysis the data did not allow (an event with one value, an outcome with none...), and why: the other
    analyses and the metrics stand."""

    reason: str

    def to_json(self) -> dict[str, object]:
        return {"not_run": self.reason}


def run_analyses(working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind],
                 request: AnalysisRequest, seed: int, names: Iterable[str] | None = None,
                 progress: Callable[[str], None] | None = None) -> dict[str, object]:
    """Every analysis of ``names`` (default: the request's), in order; ``progress`` hears each one's name first. One
    that the data do not allow is an :class:`AnalysisNotRun` that says why."""
    results = {}
    for name in request.names() if names is None else names:
        if progress:
            progress(name)
        try:
            results[name] = run_analysis(name, working, holdout, avatars, kinds, request, seed)
        except InputError as error:
            results[name] = AnalysisNotRun(str(error))
    return results
