"""A table made ready for synthesis (SPEC section 2, steps 1 to 3): what every method and every setting of a
sweep start from, shared explicitly."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.engine.encoding import EncodedTable, TableCodec
from core.engine.identifiers import IdentifierForm
from core.engine.imputation import Indicators
from core.engine.projection import Projection
from core.engine.reduction import CategoricalReduction
from core.engine.schema import ColumnProfile, Kind


@dataclass
class PreparedTable:
    """The typed originals, their holdout split, encoding, imputation and projection.

    ``working_data`` and ``holdout_data`` are the originals avatarized (WO) and set aside (HO, or None);
    ``excluded`` the columns set aside and re-attached afterwards (their originals in ``excluded_originals``);
    ``identifiers`` the identifier-like columns that take no part and get new identifiers in the avatars;
    ``complete`` the encoded, imputed WO with its indicators of missing values and spikes (``indicators`` says
    where they are), ``model_table`` what the projection sees (after the categorical reduction when it is on),
    ``coordinates`` WO's first ``ncp`` latent coordinates; ``labels`` the user's column labels, which the frames
    given back carry (the engine names columns by ``str(label)``). A ``low_memory`` fit sets the originals, then the
    model table and coordinates, to None as soon as they are no longer needed.
    """

    kinds: dict[str, Kind]
    profiles: list[ColumnProfile]
    columns: list[str]
    excluded: list[str]
    working_data: pd.DataFrame | None
    holdout_data: pd.DataFrame | None
    excluded_originals: pd.DataFrame
    n_total: int
    identifiers: list[IdentifierForm]
    labels: tuple | None = None  # the user's column labels when one is not a string (0, 1, ...), else None
    codec: TableCodec | None = None
    indicators: Indicators | None = None
    complete: EncodedTable | None = None
    reduction: CategoricalReduction | None = None
    model_table: EncodedTable | None = None
    projection: Projection | None = None
    ncp: int = 0
    coordinates: np.ndarray | None = None

    @property
    def set_apart(self) -> list[str]:
        """The columns that take no part in the synthesis: excluded ones and identifiers."""
        return [*self.excluded, *(form.name for form in self.identifiers)]

    @property
    def holdout(self) -> str:
        """``"real"`` when a holdout half was set aside, else ``"none"``."""
        return "real" if self.holdout_rows else "none"

    @property
    def holdout_rows(self) -> int:
        return self.n_total - self.n_working

    @property
    def n_working(self) -> int:
        """The rows avatarized (known after the originals are let go)."""
        return len(self.excluded_originals)
