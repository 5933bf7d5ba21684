"""Each variable's missing share, real against avatars (SPEC section 9), with the holdout's as the reference."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from core.metrics.analysis import SIDES


@dataclass(frozen=True)
class MissingShare:
    """The share of rows missing one variable on WO, WA and HO."""

    variable: str
    shares: dict[str, float]

    @property
    def difference(self) -> float:
        return self.shares["avatars"] - self.shares["real"]

    @property
    def reference_difference(self) -> float:
        return self.shares["holdout"] - self.shares["real"]

    def to_json(self) -> dict[str, object]:
        return {"variable": self.variable, **self.shares, "difference": self.difference,
                "reference_difference": self.reference_difference}


@dataclass(frozen=True)
class MissingShares:
    """Every variable's missing share."""

    variables: tuple[MissingShare, ...]

    def largest_difference(self) -> MissingShare | None:
        """The variable whose share moves most between the real rows and the avatars (None: no variable)."""
        return max(self.variables, key=lambda share: abs(share.difference), default=None)

    def to_json(self) -> dict[str, object]:
        return {"variables": [share.to_json() for share in self.variables]}


def missing_shares(working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame) -> MissingShares:
    """``share = rows missing the variable / rows`` on each side (0 for a side without rows)."""
    frames = dict(zip(SIDES, (working, avatars, holdout), strict=True))
    shares = {side: frame.isna().mean() if len(frame) else frame.isna().sum() for side, frame in frames.items()}
    return MissingShares(tuple(MissingShare(str(name), {side: float(shares[side][name]) for side in SIDES})
                               for name in working.columns))
