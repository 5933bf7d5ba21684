"""A relation declared by the user (``--relation``, a schema's ``relations``) for one the data show only
approximately (issue 30), read from one line and learned on the typed originals:

    low = bwt < 2500          a yes/no threshold (the label of most rows below the cut, and of most above)
    admission <= discharge    an order
    total = a + b [+ c]       a total
    logwage = log(wage)       a monotone form (identity, log, sqrt, log10, log2, exp), its coefficients fitted
    region = town             a column set by a categorical (the most frequent value of each)

A name holding spaces or signs goes in single quotes: ``'birth weight' <= 'weight at one year'``.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from core.dataset.relations.base import decimals, is_number
from core.dataset.relations.columns import TableColumns, table_columns
from core.dataset.relations.determined import Determined
from core.dataset.relations.intervals import Intervals
from core.dataset.relations.monotone import FORMS, Monotone
from core.dataset.relations.order import Order
from core.dataset.relations.relation import Relation
from core.dataset.relations.total import Total
from core.errors import InputError
from core.i18n import _

_NAME = r"(?:'[^']+'|[^\s'=<>+()]+)"
_FORMS = "|".join(FORMS)
PATTERNS = {
    "order": re.compile(rf"^({_NAME})\s*<=\s*({_NAME})$"),
    "threshold": re.compile(rf"^({_NAME})\s*=\s*({_NAME})\s*<\s*(-?[0-9.eE+-]+)$"),
    "total": re.compile(rf"^({_NAME})\s*=\s*({_NAME}(?:\s*\+\s*{_NAME})+)$"),
    "form": re.compile(rf"^({_NAME})\s*=\s*({_FORMS})\(\s*({_NAME})\s*\)$"),
    "determined": re.compile(rf"^({_NAME})\s*=\s*({_NAME})$"),
}
EXAMPLES = "low = bwt < 2500, admission <= discharge, total = a + b, logwage = log(wage), region = town"


def declared_relation(text: str, table: pd.DataFrame | TableColumns) -> Relation:
    """The relation ``text`` declares, learned on ``table`` (typed originals: a frame, or a batch run's typed
    columns); an unreadable line or an unknown column refused in one line."""
    line, table = text.strip(), table_columns(table)
    for kind, pattern in PATTERNS.items():
        match = pattern.match(line)
        if match:
            columns = _checked(line, [_unquoted(group) for group in match.groups()], table.names, kind)
            frame = table.whole(columns)
            _check_numbers(line, frame, columns, kind)
            return _LEARNERS[kind](frame, columns, match)
    raise InputError(_("The relation \"{text}\" is not one the workbench reads: write it as one of {examples}.").format(
        text=text, examples=EXAMPLES))


def _unquoted(name: str) -> str:
    return name[1:-1] if name.startswith("'") and name.endswith("'") else name


def _checked(line: str, names: list[str], table_names: list[str], kind: str) -> list[str]:
    if kind == "threshold":
        columns = names[:2]
    elif kind == "total":
        columns = [names[0], *(_unquoted(part.strip()) for part in re.findall(_NAME, names[1]))]
    elif kind == "form":
        columns = [names[0], names[2]]
    else:
        columns = names
    for column in columns:
        if column not in table_names:
            raise InputError(_("The relation \"{text}\" names the column '{column}', which the table does not have: "
                               "check its spelling (a name with spaces goes in single quotes).").format(
                                   text=line, column=column))
    repeated = next((column for column in columns if columns.count(column) > 1), None)
    if repeated is not None:  # issue 47: "low = low" was a pandas traceback
        raise InputError(_("The relation \"{text}\" names '{column}' twice: a relation links different "
                           "columns.").format(text=line, column=repeated))
    return columns


def _check_numbers(line: str, frame: pd.DataFrame, columns: list[str], kind: str) -> None:
    """The columns a form computes on are numbers (an order's may be dates; a threshold's source only)."""
    computed = {"order": columns, "total": columns, "form": columns, "threshold": columns[1:]}.get(kind, [])
    for column in computed:
        values = frame[column]
        dated = kind == "order" and pd.api.types.is_datetime64_any_dtype(values)
        written = values.dropna().astype(str) if not (dated or is_number(values)) else None  # codes, identifiers
        if written is not None and pd.to_numeric(written, errors="coerce").isna().any():  # "town <= a": a traceback
            said = _("The relation \"{text}\": '{column}' does not hold numbers or dates, so this form does not "
                     "apply to it; a column of categories takes the form 'target = {column}'.") if kind == "order" \
                else _("The relation \"{text}\": '{column}' does not hold numbers, so this form does not apply to "
                       "it; a column of categories takes the form 'target = {column}'.")
            raise InputError(said.format(text=line, column=column))


def _threshold(frame: pd.DataFrame, columns: list[str], match: re.Match) -> Relation:
    target, source = columns
    try:
        cut = float(match.group(3))
    except ValueError:
        raise InputError(_("The relation \"{text}\": '{cut}' is not a number.").format(
            text=match.string, cut=match.group(3))) from None
    values = pd.to_numeric(frame[source], errors="coerce")
    below, above = frame.loc[values < cut, target].mode(), frame.loc[values >= cut, target].mode()
    if below.empty or above.empty or below.iloc[0] == above.iloc[0]:
        raise InputError(_("The relation \"{text}\": the rows on each side of {cut} do not hold two different values "
                           "of '{target}'.").format(text=match.string, cut=match.group(3), target=target))
    return Intervals(source, target, (cut,), (below.iloc[0], above.iloc[0]))


def _total(frame: pd.DataFrame, columns: list[str], match: re.Match) -> Relation:
    total = frame[columns[0]]
    places = decimals(pd.to_numeric(total).to_numpy(dtype=float))
    return Total(columns[0], tuple(columns[1:]), places, pd.api.types.is_integer_dtype(total))


def _form(frame: pd.DataFrame, columns: list[str], match: re.Match) -> Relation:
    target, source = columns
    pairs = frame[[source, target]].dropna().astype(float)
    with np.errstate(all="ignore"):
        transformed = FORMS[match.group(2)](pairs[source].to_numpy())
    finite = np.isfinite(transformed)
    if finite.sum() < 2 or np.ptp(transformed[finite]) == 0:
        raise InputError(_("The relation \"{text}\": '{source}' takes too few values for the form to be fitted.").format(
            text=match.string, source=source))
    slope, intercept = np.polyfit(transformed[finite], pairs[target].to_numpy()[finite], 1)
    values = pd.to_numeric(frame[target]).to_numpy(dtype=float)
    return Monotone(source, target, match.group(2), float(f"{slope:.10g}"), float(f"{intercept:.10g}"),
                    decimals(values), pd.api.types.is_integer_dtype(frame[target]))


def _determined(frame: pd.DataFrame, columns: list[str], match: re.Match) -> Relation:
    target, source = columns
    if is_number(frame[source]):
        raise InputError(_("The relation \"{text}\": '{source}' holds numbers, which the avatars average, so no value of "
                           "the originals' would set '{target}': declare a threshold ('{target} = {source} < 2500') "
                           "or a form ('{target} = log({source})'), or give '{source}' the categorical kind.").format(
                               text=match.string, source=source, target=target))
    pairs = frame[[source, target]].dropna()
    mapping = pairs.groupby(source, observed=True)[target].agg(lambda values: values.mode().iloc[0])
    return Determined(source, target, tuple(mapping.items()))


_LEARNERS = {
    "order": lambda frame, columns, match: Order(*columns),
    "threshold": _threshold,
    "total": _total,
    "form": _form,
    "determined": _determined,
}
