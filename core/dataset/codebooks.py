"""A table that describes another's columns rather than holding rows (issue 46): the codebook sheet a workbook is
usually shipped with beside its data sheet (a births table of 1 236 rows x 23 columns and a "codebook" of 23 rows:
each column's name and meaning). Uploaded with its data, it read as a second table of persons, with no link, and
Generate refused it ("no column is left to synthesize"). The Data page proposes leaving it out.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

NAMED_SHARE = 0.5  # a codebook: at least this share of one of its columns' values name another table's columns


def codebooks(frames: Mapping[str, pd.DataFrame]) -> dict[str, str]:
    """The tables that describe another's columns, each with the table it describes: no more rows than a few times
    that table's columns, and a column whose values are, for at least :data:`NAMED_SHARE` of them, names of that
    table's columns (compared without case or surrounding spaces)."""
    found = {}
    for name, frame in frames.items():
        for other, described in frames.items():
            columns = {str(column).strip().lower() for column in described.columns}
            if other == name or other in found or len(frame) == 0 or len(frame) > 4 * max(len(columns), 5):
                continue
            if any(_named_share(frame[column], columns) >= NAMED_SHARE for column in frame.columns):
                found[name] = other
                break
    return found


def _named_share(values: pd.Series, columns: set[str]) -> float:
    present = values.dropna().astype(str).str.strip().str.lower()
    return float(present.isin(columns).mean()) if len(present) else 0.0
