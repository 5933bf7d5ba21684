"""The public API: :class:`Avatarizer` runs the shared pipeline of SPEC section 2 with the Avatar method.

Steps: type the columns, set a real holdout half aside (SPEC section 5), encode, add
missing indicators and impute, project, synthesise in the latent space, decode,
restore missing values, shuffle. One ``numpy.random.Generator``, made from ``seed``,
drives every random step in that order, so the same seed gives the same avatars.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from contextlib import contextmanager
from typing import Iterator

import numpy as np
import pandas as pd

from core.avatar import combine_neighbours, neighbour_weights, neighbours_excluding_self
from core.encoding import TableCodec
from core.errors import InputError
from core.holdout import HOLDOUT_MIN_ROWS, split_holdout
from core.imputation import IMPUTATION_METHODS, add_missing_indicators, impute, restore_missing
from core.projection import Projection
from core.schema import ColumnProfile, apply_kinds, profile_columns, resolve_kinds
from core.validation import check_choice, check_seed, check_whole_number

DEFAULT_NCP = 5


class Avatarizer:
    """Generate avatars of a table with the Avatar method (SPEC sections 2, 3 and 5).

    Parameters
    ----------
    k : int
        Number of nearest neighbours combined into each avatar; ``2 <= k < n``.
        Smaller keeps more signal, larger protects more.
    ncp : int, optional
        Latent dimensions used for the neighbour search; default
        ``min(5, number of scaled columns)``.
    imputation : {"fast_knn", "knn", "mode", "median", "mean"}
        Temporary imputation of missing values (see :mod:`core.imputation`).
    column_kinds : mapping of column name to "numeric", "categorical" or "datetime", optional
        Overrides of the detected kinds.
    column_weights : mapping of column name to a positive weight, optional
        Importance of each variable in the projection (see :class:`~core.projection.Projection`).
    holdout : bool
        Set a random half aside before synthesis when the table has at least
        ``holdout_min_rows`` rows (SPEC section 5). Off: every row is avatarized.
    holdout_min_rows : int
    seed : int, optional
        Drives every random step. ``None`` draws one, kept in ``seed_``.

    Attributes
    ----------
    avatars_ : DataFrame, shuffled: the avatars to share.
    paired_avatars_ : DataFrame, avatar ``i`` made from ``working_data_`` row ``i``.
        Sensitive: the pairing is what the privacy metrics need and what an
        attacker would want. Never share it.
    working_data_, holdout_data_ : the originals avatarized (WO) and set aside (HO, or None).
    holdout_ : ``"real"`` when a holdout half was set aside, else ``"none"`` (the
        metrics then draw an approximate one).
    kinds_, profiles_ : column kinds and per-column warnings.
    codec_ : the fitted encoding of the columns.
    imputed_table_ : WO encoded, imputed, with its missing indicators: what the projection sees.
    projection_, coordinates_ : the fitted projection and WO's first ``ncp_`` latent coordinates.
    ncp_, seed_ : the values used.
    neighbour_indices_, neighbour_weights_ : (n, k) neighbours (rows of WO) and weights.
    timings_s_ : seconds per step.
    """

    def __init__(
        self,
        *,
        k: int | None = None,
        ncp: int | None = None,
        imputation: str = "fast_knn",
        column_kinds: Mapping[str, str] | None = None,
        column_weights: Mapping[str, float] | None = None,
        holdout: bool = True,
        holdout_min_rows: int = HOLDOUT_MIN_ROWS,
        seed: int | None = None,
    ):
        self.k = k
        self.ncp = ncp
        self.imputation = imputation
        self.column_kinds = column_kinds
        self.column_weights = column_weights
        self.holdout = holdout
        self.holdout_min_rows = holdout_min_rows
        self.seed = seed

    def fit(self, frame: pd.DataFrame) -> Avatarizer:
        """Avatarize ``frame``; the results are in the attributes ending with ``_``."""
        if self.k is None:
            raise InputError("k is required: give the number of neighbours, for example k=10.")
        k = check_whole_number("k", self.k, minimum=2, hint="k is the number of neighbours combined, for example 10.")
        if self.ncp is not None:
            check_whole_number("ncp", self.ncp, minimum=1, hint="ncp is the number of latent dimensions, for example 5.")
        check_choice("imputation", self.imputation, IMPUTATION_METHODS)
        holdout_min_rows = check_whole_number("holdout_min_rows", self.holdout_min_rows, minimum=2)
        seed = check_seed(self.seed)
        self.seed_ = int(np.random.SeedSequence().entropy % 2**32) if seed is None else seed
        rng = np.random.default_rng(self.seed_)
        self.timings_s_: dict[str, float] = {}

        with self._timed("typing"):
            frame = _check_frame(frame)
            self.kinds_ = resolve_kinds(frame, self.column_kinds)
            typed = apply_kinds(frame, self.kinds_)
            self.profiles_: list[ColumnProfile] = profile_columns(typed, self.kinds_)
            _check_values(typed)

        use_holdout = bool(self.holdout) and len(typed) >= holdout_min_rows
        if use_holdout:
            working_rows, holdout_rows = split_holdout(len(typed), rng)
            self.working_data_ = typed.iloc[working_rows].reset_index(drop=True)
            self.holdout_data_: pd.DataFrame | None = typed.iloc[holdout_rows].reset_index(drop=True)
        else:
            self.working_data_, self.holdout_data_ = typed.reset_index(drop=True), None
        self.holdout_ = "real" if use_holdout else "none"
        n_rows = len(self.working_data_)
        if k >= n_rows:
            raise InputError(_k_too_large(k, n_rows, len(typed), use_holdout))
        if k == 2:
            warnings.warn("k = 2 combines only two neighbours: avatars stay close to them. Prefer k >= 5.", UserWarning, stacklevel=2)

        with self._timed("encoding and imputation"):
            self.codec_ = TableCodec(self.kinds_).fit(self.working_data_)
            encoded, n_categorical = add_missing_indicators(self.codec_.encode(self.working_data_))
            self.imputed_table_ = complete = impute(encoded, self.imputation, rng)

        with self._timed("projection"):
            self.projection_ = Projection(self.column_weights).fit(complete)
            self.ncp_ = self._resolve_ncp(len(self.projection_.components_))
            self.coordinates_ = self.projection_.transform(complete, self.ncp_)

        with self._timed("synthesis"):
            distances, self.neighbour_indices_ = neighbours_excluding_self(self.coordinates_, k)
            self.neighbour_weights_ = neighbour_weights(distances, rng)
            synthetic = combine_neighbours(complete, self.neighbour_indices_, self.neighbour_weights_, rng)

        with self._timed("decoding"):
            self.paired_avatars_ = self.codec_.decode(restore_missing(synthetic, n_categorical))
            self.avatars_ = self.paired_avatars_.iloc[rng.permutation(n_rows)].reset_index(drop=True)
        return self

    def _resolve_ncp(self, n_scaled_columns: int) -> int:
        if self.ncp is None:
            return min(DEFAULT_NCP, n_scaled_columns)
        if self.ncp > n_scaled_columns:
            raise InputError(
                f"ncp must be at most {n_scaled_columns}, the number of scaled columns of this table, got {self.ncp}."
            )
        return int(self.ncp)

    @contextmanager
    def _timed(self, step: str) -> Iterator[None]:
        start = time.perf_counter()
        yield
        self.timings_s_[step] = time.perf_counter() - start


def _check_frame(frame: pd.DataFrame) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"The table must be a pandas DataFrame, got {type(frame).__name__}.")
    names = [str(name) for name in frame.columns]
    duplicated = pd.Index(names)[pd.Index(names).duplicated()]
    if len(duplicated):
        raise InputError(f"Two columns are named '{duplicated[0]}': rename one so that every column name is unique.")
    if frame.shape[1] == 0:
        raise InputError("The table has no columns.")
    if len(frame) == 0:
        raise InputError("The table has no rows.")
    frame = frame.copy(deep=False)
    frame.columns = names
    return frame


def _check_values(frame: pd.DataFrame) -> None:
    empty = [name for name in frame.columns if frame[name].isna().all()]
    if len(empty) == frame.shape[1]:
        raise InputError("Every value of the table is missing: there is nothing to avatarize.")
    if empty:
        raise InputError(f"Column '{empty[0]}' has no values at all: remove it from the table.")


def _k_too_large(k: int, n_rows: int, n_total: int, use_holdout: bool) -> str:
    if use_holdout:
        return (
            f"k must be smaller than the number of rows avatarized, {n_rows} (half of {n_total}: the other half is "
            f"the holdout), got {k}. Lower k, or turn the holdout off."
        )
    return f"k must be smaller than the number of rows, {n_rows}, got {k}. Lower k, or give a table with more rows."

