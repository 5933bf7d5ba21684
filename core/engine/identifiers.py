"""Identifier-like columns (SPEC section 2 step 1, revised): they take no part in the synthesis, and the avatars
get new identifiers of the same form that carry nothing of the originals (the commercial engine's
pseudonymisation is the anchor) and never equal one of them (a new id equal to a real one would join an avatar to
a real person's rows elsewhere): whole numbers stay whole numbers, numbered from ``10^d + 1`` with ``d`` the
originals' largest number of digits (``10001`` for ids up to ``9999``), within int64 (19-digit ids: the numbers
next to theirs, above or below, else in the widest gap between them); text becomes the originals' common
leading letters, ``AV`` and a number (``PAV00001`` for ``P00635``), or ``avatar-`` and a number (e-mails, free
text)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from core.engine.schema import ColumnProfile, WarningKind

DEFAULT_PREFIX = "avatar-"
_LEADING = re.compile(r"^[^\d]*")
_SAMPLE = 1_000


@dataclass(frozen=True)
class IdentifierForm:
    """How the new identifiers of one column are written: numbers, or ``prefix`` then ``digits`` digits."""

    name: str
    numeric: bool
    prefix: str = ""
    digits: int = 1
    start: int = 1
    end: int | None = None  # numbered below the originals instead: the new numbers end just before this one

    @classmethod
    def of(cls, column: pd.Series) -> IdentifierForm:
        """The form of ``column``'s identifiers (read on a sample of its values)."""
        values = column.dropna()
        numbers = values.cat.categories if isinstance(values.dtype, pd.CategoricalDtype) else values
        if pd.api.types.is_numeric_dtype(numbers) and not pd.api.types.is_bool_dtype(numbers):
            return _numeric_form(str(column.name), [int(number) for number in numbers], len(column))
        texts = [str(value) for value in values.iloc[:_SAMPLE]]
        match = _LEADING.match(os.path.commonprefix(texts))
        assert match is not None  # the pattern matches every text (at least its empty start)
        leading = match.group() if texts else ""
        digits = max((len(text) - len(leading) for text in texts), default=1)
        every = values.astype(str)  # the form is read on a sample; a new id never equals any of theirs
        if not leading or not all(text[len(leading):].isdigit() for text in texts):  # e-mails, free text
            prefix = DEFAULT_PREFIX
            while every.str.startswith(prefix).any():
                prefix = "new-" + prefix
            return cls(str(column.name), numeric=False, prefix=prefix, digits=1)
        prefix = leading + "AV"
        while every.str.startswith(prefix).any():  # PAV0001 among the originals beyond the sample: PAVV0001
            prefix += "V"
        return cls(str(column.name), numeric=False, prefix=prefix, digits=max(1, min(digits, 12)))

    def new_values(self, n_rows: int, first: int = 0, total: int | None = None) -> pd.Series:
        """``n_rows`` new identifiers, numbered in the avatars' order; ``first`` and ``total``: the avatars of one
        batch among ``total``, numbered after the ``first`` of the batches before it, written alike."""
        every = total or n_rows
        origin = self.start if self.end is None else self.end - every  # the whole run's first: every batch alike
        start = origin + first
        if self.numeric and origin + every >= 2**63 and origin >= 0 and origin + every <= 2**64:  # unsigned originals
            return pd.Series(np.arange(np.uint64(start), np.uint64(start + n_rows), dtype=np.uint64), name=self.name)
        numbers = np.arange(start, start + n_rows)
        if self.numeric:
            return pd.Series(numbers, name=self.name)
        width = max(self.digits, len(str(total or n_rows)))
        return pd.Series([f"{self.prefix}{number:0{width}d}" for number in numbers], name=self.name, dtype=object)


def _numeric_form(name: str, numbers: list[int], room: int) -> IdentifierForm:
    """New whole-number identifiers for ``room`` avatars, none of them one of ``numbers`` (Python ints: exact
    beyond 2^53): from the power of ten above them, plus one (1001 after 17 and 250); where that would pass int64,
    what every output format holds (19-digit keys), from the number after the largest, else ending just before the
    smallest, else in the widest gap between two of them (ids spread over all of int64: n ids leave a gap of at
    least 2^64 / n)."""
    largest = max((abs(number) for number in numbers), default=0)
    power = IdentifierForm(name, numeric=True, start=10 ** len(str(largest)) + 1)
    if power.start + room < 2**63 or not numbers:
        return power
    if max(numbers) + 1 + room < 2**63:
        return replace(power, start=max(numbers) + 1)
    smallest = min(numbers)
    if smallest - room >= (-2**63 if smallest < 0 else min(smallest, 1)):  # ids >= 0 (unsigned) stay >= 0
        return replace(power, end=smallest)
    ordered = sorted(set(numbers))
    _width, before = max((after - before, before) for before, after in zip(ordered, ordered[1:], strict=False))
    return replace(power, start=before + 1)


def identifier_columns(profiles: list[ColumnProfile], typed_by_user: set[str], set_aside: set[str]) -> list[str]:
    """The identifier-like columns to give new identifiers: those the user neither typed nor set aside."""
    return [
        profile.name for profile in profiles
        if any(warning.kind is WarningKind.IDENTIFIER for warning in profile.warnings)
        and profile.name not in typed_by_user and profile.name not in set_aside
    ]
