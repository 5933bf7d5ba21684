"""The names of what a person's rows in a child table add up to (SPEC 12's enrichment of each person with everything
about them), written once: the number of rows, the mean of a number, the share of a modality; and the shares that
add up together."""

from __future__ import annotations

from collections.abc import Iterable

SHARE = ": share "


def number_name(child: str) -> str:
    """``stays: number``, how many rows of ``child`` a person has."""
    return f"{child}: number"


def mean_name(child: str, column: str) -> str:
    """``stays: mean days``, the mean of a number over a person's rows of ``child``."""
    return f"{child}: mean {column}"


def share_name(child: str, column: str, modality: object) -> str:
    """``stays: share ward = A``, the share of a person's rows of ``child`` with ``column`` at ``modality``."""
    return f"{child}{SHARE}{column} = {modality}"


def share_siblings(name: str, columns: Iterable[str]) -> list[str]:
    """The other shares of the same child column as ``name`` (none when ``name`` is not a share): with ``name`` they
    add up to at most 1 on every row, so that together they give it."""
    if SHARE not in name or " = " not in name:
        return []
    family = name[:name.index(" = ", name.index(SHARE)) + len(" = ")]
    return [column for column in columns if column != name and column.startswith(family)]
