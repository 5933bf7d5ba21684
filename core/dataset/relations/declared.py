"""A relation declared by the user (``--relation``, a schema's ``relations``) for one the data show only
approximately (issue 30), read from one line and learned on the typed originals:

    low = bwt < 2500          a yes/no threshold (the label of most rows below the cut, and of most above)
    admission <= discharge    an order
    total = a + b [+ c]       a total
    logwage = log(wage)       a monotone form (identity, log, sqrt, log10, log2, exp), its coefficients fitted
    region = town             a column set by a categorical (the most frequent value of each)

A name holding spaces or signs goes in single quotes: ``'birth weight' <= 'weight at one year'``.

Each is checked on the originals before any work (issue 47): one their rows break beyond
:data:`DECLARED_TOLERANCE` is refused, as is one that would give its column values the originals never had (missing
where they hold one, infinite, outside their range); within it, the share broken is said with the relation
(:attr:`Relation.broken`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pandas as pd

from core.dataset.relations.base import decimals, is_number, tolerance
from core.dataset.relations.columns import TableColumns, table_columns
from core.dataset.relations.determined import Determined
from core.dataset.relations.intervals import Intervals
from core.dataset.relations.monotone import FORMS, Monotone
from core.dataset.relations.order import Order
from core.dataset.relations.relation import Relation
from core.dataset.relations.total import Total
from core.errors import InputError
from core.i18n import _, number, percent

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
DECLARED_TOLERANCE = 0.05  # a declared relation is refused when more than this share of the originals' rows break it
Group = Callable[[int], str]  # a match's group by its number
SHOWN = 120  # the characters of a refused line echoed in its message


def declared_relation(text: str, table: pd.DataFrame | TableColumns) -> Relation:
    """The relation ``text`` declares, learned on ``table`` (typed originals: a frame, or a batch run's typed
    columns); an unreadable line or an unknown column refused in one line."""
    line, table = text.strip(), table_columns(table)
    shown = _cut(line)  # issue 47: a 100 000-digit rule was echoed in full
    for kind, pattern in PATTERNS.items():
        match = pattern.match(line)
        if match:
            columns = _checked(shown, [_unquoted(group) for group in match.groups()], table.names, kind)
            frame = table.whole(columns)
            _check_numbers(shown, frame, columns, kind)
            return _held_by(shown, _LEARNERS[kind](frame, columns, match.group, shown), frame)
    raise InputError(_("The relation \"{text}\" is not one the workbench reads: write it as one of {examples}.").format(
        text=shown, examples=EXAMPLES))


def _held_by(shown: str, relation: Relation, frame: pd.DataFrame) -> Relation:
    """``relation`` with the share of the originals' rows that break it, refused beyond :data:`DECLARED_TOLERANCE`
    or when the column it computes would take values the originals never had (issue 47: "a <= b" holding on 53 % of
    rows was said "kept on every row"; "total = log(a)" with ``a`` negative left half the totals empty)."""
    broken = relation.breaking(frame)
    if broken.mean() > DECLARED_TOLERANCE:
        raise InputError(_("The relation \"{text}\" is broken on {count} of the {rows} original rows ({share}); a "
                           "declared relation may be broken on {tolerance} of them at most, since the avatars then "
                           "keep it on every row: check it, or leave it out.").format(
                               text=shown, count=number(int(broken.sum()), ","), rows=number(len(frame), ","),
                               share=percent(100 * broken.mean()), tolerance=percent(100 * DECLARED_TOLERANCE, ".0f")))
    if relation.derived is not None:
        _check_values(shown, relation.derived, relation.apply(frame)[relation.derived], frame[relation.derived])
    return replace(relation, broken=float(broken.mean())) if broken.any() else relation


def _check_values(shown: str, column: str, computed: pd.Series, actual: pd.Series) -> None:
    """The values a relation computes on the originals are ones they had: not missing where they hold one, finite,
    within their range."""
    emptied = int((computed.isna() & actual.notna()).sum())
    if emptied:
        raise InputError(_("The relation \"{text}\" would leave '{column}' empty on {count} rows where the originals "
                           "hold a value: check it, or leave it out.").format(
                               text=shown, column=column, count=number(emptied, ",")))
    if not (is_number(actual) and is_number(computed)):
        return
    values, known = computed.to_numpy(dtype=float), actual.dropna().to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    if len(finite) < computed.notna().sum():
        raise InputError(_("The relation \"{text}\" would make '{column}' infinite: check it, or leave it "
                           "out.").format(text=shown, column=column))
    room = tolerance(known)
    if len(finite) and len(known) and (finite.min() < known.min() - room or finite.max() > known.max() + room):
        raise InputError(_("The relation \"{text}\" would give '{column}' values from {low} to {high}, beyond the "
                           "originals' {first} to {last}: check it, or leave it out.").format(
                               text=shown, column=column, low=number(finite.min(), ".4g"),
                               high=number(finite.max(), ".4g"), first=number(known.min(), ".4g"),
                               last=number(known.max(), ".4g")))


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN] + "…"


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
                                   text=line, column=_cut(column)))
    counts = Counter(columns)
    repeated = next((column for column in columns if counts[column] > 1), None)
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


def _threshold(frame: pd.DataFrame, columns: list[str], group: Group, shown: str) -> Relation:
    target, source = columns
    try:
        cut = float(group(3))
    except ValueError:
        raise InputError(_("The relation \"{text}\": '{cut}' is not a number.").format(
            text=shown, cut=group(3))) from None
    values = pd.to_numeric(frame[source], errors="coerce")
    below, above = frame.loc[values < cut, target].mode(), frame.loc[values >= cut, target].mode()
    if below.empty or above.empty or below.iloc[0] == above.iloc[0]:
        raise InputError(_("The relation \"{text}\": the rows on each side of {cut} do not hold two different values "
                           "of '{target}'.").format(text=shown, cut=group(3), target=target))
    return Intervals(source, target, (cut,), (below.iloc[0], above.iloc[0]))


def _total(frame: pd.DataFrame, columns: list[str], group: Group, shown: str) -> Relation:
    total = frame[columns[0]]
    places = decimals(pd.to_numeric(total).to_numpy(dtype=float))
    return Total(columns[0], tuple(columns[1:]), places, pd.api.types.is_integer_dtype(total))


def _form(frame: pd.DataFrame, columns: list[str], group: Group, shown: str) -> Relation:
    target, source = columns
    pairs = frame[[source, target]].dropna().astype(float)
    with np.errstate(all="ignore"):
        transformed = FORMS[group(2)](pairs[source].to_numpy())
    finite = np.isfinite(transformed)
    if finite.sum() < 2 or np.ptp(transformed[finite]) == 0:
        raise InputError(_("The relation \"{text}\": '{source}' takes too few values for the form to be fitted.").format(
            text=shown, source=source))
    slope, intercept = np.polyfit(transformed[finite], pairs[target].to_numpy()[finite], 1)
    values = pd.to_numeric(frame[target]).to_numpy(dtype=float)
    return Monotone(source, target, group(2), float(f"{slope:.10g}"), float(f"{intercept:.10g}"),
                    decimals(values), pd.api.types.is_integer_dtype(frame[target]))


def _determined(frame: pd.DataFrame, columns: list[str], group: Group, shown: str) -> Relation:
    target, source = columns
    if is_number(frame[source]):
        raise InputError(_("The relation \"{text}\": '{source}' holds numbers, which the avatars average, so no value of "
                           "the originals' would set '{target}': declare a threshold ('{target} = {source} < 2500') "
                           "or a form ('{target} = log({source})'), or give '{source}' the categorical kind.").format(
                               text=shown, source=source, target=target))
    pairs = frame[[source, target]].dropna()
    mapping = pairs.groupby(source, observed=True)[target].agg(lambda values: values.mode().iloc[0])
    return Determined(source, target, tuple(mapping.items()))


_LEARNERS: dict[str, Callable[[pd.DataFrame, list[str], Group, str], Relation]] = {
    "order": lambda frame, columns, group, shown: Order(*columns),
    "threshold": _threshold,
    "total": _total,
    "form": _form,
    "determined": _determined,
}
