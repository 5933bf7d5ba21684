"""The join of each child with its parent (SPEC 12), on the two real halves (the working half's and the holdout's, one
family on one side) and on the avatars: what :mod:`~core.metrics.links.join_hellinger_mean` and
:mod:`~core.metrics.links.join_correlation_difference_ratio` compare, how much of what ties a stay to its patient the
avatars keep."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.dataset import Kind, Link
from core.dataset.keys import key_values
from core.engine.schema import apply_kinds, resolve_kinds
from core.i18n import N_
from core.metrics.inputs import typed_like

PARENT_COLUMN = "{parent}.{column}"  # a parent's column in the join


def joined(parents: pd.DataFrame, children: pd.DataFrame, link: Link, keys: Sequence[str]) -> pd.DataFrame:
    """Each child with a parent beside its parent's columns (named by :data:`PARENT_COLUMN`), the ``keys`` of both
    left out."""
    own = [name for name in children.columns if name not in keys]
    theirs = [name for name in parents.columns if name not in keys]
    rows = pd.Index(key_values(parents[link.key])).get_indexer(key_values(children[link.foreign_key]))
    present = rows >= 0
    side = parents[theirs].iloc[rows[present]].reset_index(drop=True)
    side.columns = [PARENT_COLUMN.format(parent=link.parent, column=name) for name in theirs]
    return pd.concat([children[own][present].reset_index(drop=True), side], axis=1)


@dataclass(frozen=True)
class Joins:
    """A link's join on the working half, the holdout (or the other half) and the avatars, typed with ``kinds``."""

    working: pd.DataFrame
    holdout: pd.DataFrame
    avatars: pd.DataFrame
    kinds: dict[str, Kind]


def typed_joins(working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame,
                declared: Mapping[str, str] | None = None) -> Joins:
    """The joins (:func:`joined`) of the working half, the holdout (or the other half) and the avatars, on the columns
    all three have (avatars made elsewhere may lack some), typed with the kinds read on the working half's join,
    ``declared`` the kinds the tables' descriptions give (a series' time a time)."""
    common = [name for name in working.columns if name in holdout and name in avatars]
    kinds = resolve_kinds(working[common], {name: kind for name, kind in (declared or {}).items() if name in common})
    return Joins(apply_kinds(working[common], kinds), apply_kinds(holdout[common], kinds),
                 typed_like(avatars[common], kinds, N_("In the avatars: {error}")), kinds)


def family_halves(parents: pd.DataFrame, children: pd.DataFrame, link: Link, rng: np.random.Generator
                  ) -> tuple[tuple[pd.DataFrame, pd.DataFrame], tuple[pd.DataFrame, pd.DataFrame]]:
    """Two random halves of the real families (each parent with its children), when no holdout was set aside:
    the approximate reference of SPEC 5 for a join."""
    first = np.zeros(len(parents), dtype=bool)
    first[rng.permutation(len(parents))[:(len(parents) + 1) // 2]] = True
    rows = pd.Index(key_values(parents[link.key])).get_indexer(key_values(children[link.foreign_key]))
    in_first = np.where(rows >= 0, first[np.maximum(rows, 0)], False)
    return ((parents[first], children[in_first]), (parents[~first], children[(rows >= 0) & ~in_first]))
