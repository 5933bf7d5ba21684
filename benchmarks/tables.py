"""Mixed benchmark tables of any size: numeric, categorical (few and 200 modalities), dates, missing values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from assets.make_demo_data import make_demo_table


def benchmark_table(n_rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.normal(50, 15, n_rows)
    income = np.exp(9.5 + 0.01 * age + rng.normal(0, 0.5, n_rows))
    frame = pd.DataFrame({
        "age": np.clip(age, 18, 99).round().astype(int),
        "income": income.round(2),
        "height_cm": (170 + rng.normal(0, 9, n_rows)).round(1),
        "visits": rng.poisson(3, n_rows),
        "sex": rng.choice(["F", "M"], n_rows),
        "region": rng.choice(["north", "south", "east", "west", "centre"], n_rows, p=[0.3, 0.25, 0.2, 0.15, 0.1]),
        "occupation": rng.choice([f"job_{i:03d}" for i in range(200)], n_rows, p=_zipf(200)),
        "enrolled": (pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 1500, n_rows), unit="D")),
    })
    frame["income"] = frame["income"].where(rng.random(n_rows) > 0.1)
    frame["region"] = frame["region"].where(rng.random(n_rows) > 0.05)
    return frame


def _zipf(n: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, n + 1)
    return weights / weights.sum()


def clinical_csv(n_rows: int, folder: Path) -> Path:
    """The demo's hospital-stay table (``assets/make_demo_data.py``) at ``n_rows`` rows, written once under ``folder``:
    a table with the structure of real data (correlated measurements, categories that depend on them, values
    missing not at random), where the benchmark table is independent noise."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"clinical_{n_rows}.csv"
    if not path.exists():
        make_demo_table(n_rows).to_csv(path, index=False)
    return path


def benchmark_csv(n_rows: int, folder: Path) -> Path:
    """The table written once as CSV under ``folder`` (reused when present)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"mixed_{n_rows}.csv"
    if not path.exists():
        benchmark_table(n_rows).to_csv(path, index=False)
    return path
