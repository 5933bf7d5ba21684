"""Originals and avatars on the first axes of a projection fitted on the originals: the latent map of one table's
run and the map of who is most exposed (a sample of each when they are many)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.engine.pipeline import Avatarizer
from core.engine.schema import with_text_names
from core.metrics.space import MetricSpace

LATENT_AXES = 10
LATENT_POINTS = 3_000


@dataclass(frozen=True)
class LatentView:
    """Originals and avatars on the first axes of a projection fitted on the originals (a sample of each, for plots)."""

    originals: np.ndarray
    avatars: np.ndarray
    explained_variance_ratio: np.ndarray
    original_rows: np.ndarray | None = None  # the originals shown, as rows of WO


def latent_view(avatarizer: Avatarizer) -> LatentView:
    """Originals (WO) and all avatars on the first axes of a projection fitted on WO (missing values at the centroid)."""
    left_out = avatarizer.identifier_columns_
    originals = with_text_names(avatarizer.working_data_).drop(columns=left_out)
    avatars = with_text_names(avatarizer.avatars_).drop(columns=left_out)
    kinds = {name: kind for name, kind in avatarizer.kinds_.items() if name not in left_out}
    return latent_of(originals, avatars, kinds, avatarizer.seed_)


def latent_of(originals: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind], seed: int) -> LatentView:
    """``originals`` and ``avatars`` on the first axes of a projection fitted on the originals, a sample of each
    drawn from ``seed`` when they are many (a person table of linked tables: each person with everything about them)."""
    space = MetricSpace.fit(originals, dict(kinds))
    original_table, avatar_table, projection = space.table, space.encode(avatars), space.projection
    n_axes = max(1, min(LATENT_AXES, projection.n_components_))
    rng = np.random.default_rng([seed, 2])
    original_rows = _sample(len(originals), rng)
    avatar_rows = _sample(len(avatars), rng)
    return LatentView(
        originals=projection.transform(original_table.take(original_rows), n_axes),
        avatars=projection.transform(avatar_table.take(avatar_rows), n_axes),
        explained_variance_ratio=projection.explained_variance_ratio_[:n_axes],
        original_rows=original_rows,
    )


def _sample(n_rows: int, rng: np.random.Generator) -> np.ndarray:
    return np.sort(rng.choice(n_rows, size=LATENT_POINTS, replace=False)) if n_rows > LATENT_POINTS else np.arange(n_rows)
