"""The Data page's column table: per column its kind, its role and its weight, to and from the dataset's
:class:`~core.dataset.Table` it describes (a dataset of one table: what a generation reads)."""

from __future__ import annotations

import pandas as pd

from core.dataset import Kind, Role, Table
from core.engine.schema import ColumnProfile, WarningKind
from core.i18n import N_, _, number

# The values of the table's "role" and "kind" cells are the dataset's roles and kinds: the same in every language
# (the table is kept when the language changes), shown translated through _() (the columns' format_func).
ROLE_LABELS = {Role.SYNTHESIZED: N_("synthesize"), Role.IDENTIFIER: N_("new identifiers"),
               Role.SET_APART: N_("set aside, re-attach"), Role.DROPPED: N_("drop")}
KIND_LABELS = (N_("numeric"), N_("categorical"), N_("datetime"))


def role_label(role: str) -> str:
    """A role cell as shown: its label in the current language."""
    return _(ROLE_LABELS[Role(role)])


def plan_table(profiles: list[ColumnProfile]) -> pd.DataFrame:
    """One editable row per column, each with its default role (:func:`_default_role`)."""
    return pd.DataFrame({
        "column": [p.name for p in profiles],
        "kind": [p.kind.value for p in profiles],
        "role": [_default_role(p).value for p in profiles],
        "weight": [1.0] * len(profiles),
        **described_columns(profiles),
    })


def described_columns(profiles: list[ColumnProfile]) -> dict[str, list[str]]:
    """The table's read-only columns in the current language: the missing share and the distinct values with its
    numbers' symbols, the warnings named in it (written again at each run: a switch of language follows)."""
    return {
        "missing (%)": [number(100 * profile.missing_share, ".1f") for profile in profiles],
        "distinct values": [number(profile.n_distinct, ",") for profile in profiles],
        "warnings": [", ".join(_(warning.kind.value) for warning in profile.warnings) for profile in profiles],
    }


def _default_role(profile: ColumnProfile) -> Role:
    """New identifiers for identifier-like columns; dropped, as their warnings say, when empty or one value on
    every row (synthesised, it would score a perfect 100 and lift the Hellinger Mean for nothing)."""
    kinds = {warning.kind for warning in profile.warnings}
    if WarningKind.EMPTY in kinds or (WarningKind.CONSTANT in kinds and profile.missing_share == 0):
        return Role.DROPPED
    return Role.IDENTIFIER if WarningKind.IDENTIFIER in kinds else Role.SYNTHESIZED


def plan_from_table(table: pd.DataFrame, profiles: list[ColumnProfile], name: str) -> Table:
    """The dataset's table ``name`` the edited column table describes: every column's role but the default
    (synthesized), kinds that differ from the detected ones, weights other than 1.

    An identifier-like column the user chose to synthesise gets its kind written, which is how the engine knows it
    is an ordinary column on purpose.
    """
    detected = {p.name: p.kind.value for p in profiles}
    identifiers = {p.name for p in profiles if any(w.kind is WarningKind.IDENTIFIER for w in p.warnings)}
    rows = table.to_dict("records")
    return Table.described(
        name,
        roles={row["column"]: Role(row["role"]) for row in rows if row["role"] != Role.SYNTHESIZED},
        kinds={row["column"]: Kind(row["kind"]) for row in rows if row["kind"] != detected[row["column"]]
               or (row["column"] in identifiers and row["role"] == Role.SYNTHESIZED)},
        weights={row["column"]: float(row["weight"]) for row in rows
                 if row["role"] == Role.SYNTHESIZED and pd.notna(row["weight"]) and float(row["weight"]) != 1.0},
    )


def plan_problem(table: pd.DataFrame, profiles: list[ColumnProfile]) -> str | None:
    """What makes the edited table unusable, in one sentence, or None."""
    identifiers = {p.name for p in profiles if any(w.kind is WarningKind.IDENTIFIER for w in p.warnings)}
    roles = dict(zip(table["column"], table["role"], strict=True))
    wrong = [name for name, role in roles.items() if role == Role.IDENTIFIER and name not in identifiers]
    if wrong:
        return _("'{column}' does not look like an identifier: only identifier-like columns get new identifiers. "
                 "Drop it or set it aside instead.").format(column=wrong[0])
    if all(role != Role.SYNTHESIZED for role in roles.values()):
        return _("No column is left to synthesize (every one is dropped, set aside or given new identifiers): keep "
                 "at least one.")
    return None
