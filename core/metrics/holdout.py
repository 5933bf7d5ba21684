"""The holdout cases of SPEC section 5: WO, HO and WA, the avatars' working half, for avatars made here (``real``,
or ``approximate`` without a holdout) and for avatars made outside (``given`` a holdout file, else
``approximate``):

- ``real``: the avatarization set a random half aside before synthesis (HO); WO is the half avatarized and WA its
  avatars;
- ``given``: ``evaluate --holdout`` supplies HO; WO is ORIGINAL and WA is AVATARS;
- ``approximate``: no holdout exists; a random half of the originals is WO, the other half HO, and WA is the avatars
  of WO when avatars are paired with their originals, else a random half of the avatars.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.engine.split import Holdout, split_holdout
from core.errors import InputError
from core.i18n import N_, _
from core.metrics.inputs import typed_like
from core.metrics.space import MetricSpaces


@dataclass(frozen=True)
class HoldoutSplit:
    """WO, HO and WA of SPEC section 5, and which holdout they come from (real, given or approximate)."""

    working: pd.DataFrame
    holdout: pd.DataFrame
    working_avatars: pd.DataFrame
    kind: Holdout
    holdout_rows: np.ndarray | None = None  # HO's row numbers among the originals scored, when it is part of them
    every_avatar: pd.DataFrame | None = None  # every avatar scored, when WA is half of them (approximate, paired)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Holdout(self.kind))  # its word ("real") taken, a wrong one refused

    @property
    def originals(self) -> pd.DataFrame:
        """Every original the avatars were made from, in its order (the rows the privacy metrics score): WO, with HO
        put back in its rows when it is a half of them (both halves keep the file's order: see
        :func:`~core.engine.split.split_holdout`)."""
        if self.holdout_rows is None:
            return self.working
        rows = np.concatenate([np.setdiff1d(np.arange(len(self.working) + len(self.holdout)), self.holdout_rows),
                               self.holdout_rows])
        return pd.concat([self.working, self.holdout], ignore_index=True).iloc[np.argsort(rows)].reset_index(
            drop=True)

    @property
    def avatars(self) -> pd.DataFrame:
        """Every avatar the privacy metrics score (paired: in the order of :attr:`originals`)."""
        return self.working_avatars if self.every_avatar is None else self.every_avatar


def outside_split(typed_originals: pd.DataFrame, typed_avatars: pd.DataFrame, holdout: pd.DataFrame | None,
                   common: list[str], kinds: Mapping[str, Kind], paired: bool, rng: np.random.Generator,
                   kind: Holdout = Holdout.GIVEN) -> HoldoutSplit:
    """The holdout case of avatars scored apart from their synthesis (SPEC section 5): ``kind`` with ``holdout``
    (``given``: a file; ``real``: the half a linked run set aside, whole families), else ``approximate`` (half of
    the originals drawn as the reference)."""
    if holdout is not None:
        missing = [name for name in common if name not in holdout.columns]
        if missing:
            raise InputError(_("The holdout has no column '{name}': it must have the originals' columns.").format(
                name=missing[0]))
        return HoldoutSplit(typed_originals, typed_like(holdout[common], kinds, N_("In the holdout: {error}")),
                            typed_avatars, kind)
    working_rows, holdout_rows, avatar_rows = approximate_rows(len(typed_originals), len(typed_avatars), paired, rng)
    return HoldoutSplit(_rows(typed_originals, working_rows), _rows(typed_originals, holdout_rows),
                        _rows(typed_avatars, avatar_rows), Holdout.APPROXIMATE, holdout_rows, typed_avatars)


def avatarization_split(originals: pd.DataFrame, holdout: pd.DataFrame | None, avatars: pd.DataFrame, paired: bool,
                        spaces: MetricSpaces, seed: int) -> HoldoutSplit:
    """The holdout case of avatars made here: ``real`` with the ``holdout`` half the avatarization set aside, else
    ``approximate``, drawn from a generator of the run's ``seed`` apart from the one that made the avatars (so that
    every run with that seed, each setting of a sweep, is scored against the same halves; ``spaces`` keeps them)."""
    if holdout is not None:
        return HoldoutSplit(originals, holdout, avatars, Holdout.REAL)
    working, holdout, avatar_rows, holdout_rows = spaces.approximate_split(
        originals, len(avatars), paired,
        lambda: approximate_rows(len(originals), len(avatars), paired, np.random.default_rng([seed, 1])))
    return HoldoutSplit(working, holdout, _rows(avatars, avatar_rows), Holdout.APPROXIMATE, holdout_rows, avatars)


def approximate_rows(
    n_originals: int, n_avatars: int, paired: bool, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of WO, HO (among the originals) and WA (among the avatars) for the approximate holdout (SPEC section 5)."""
    working_rows, holdout_rows = split_holdout(n_originals, rng)
    avatar_rows = working_rows if paired else np.sort(rng.permutation(n_avatars)[: (n_avatars + 1) // 2])
    return working_rows, holdout_rows, avatar_rows


def _rows(frame: pd.DataFrame, rows: np.ndarray) -> pd.DataFrame:
    return frame.iloc[rows].reset_index(drop=True)
