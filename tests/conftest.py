"""Shared fixtures: generated mixed tables and the reference data of ../shared (read in place)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, settings

SHARED = Path(__file__).resolve().parents[2] / "shared"
settings.register_profile(
    "default", deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "default")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared``: skipped with a reason where absent, required in CI."""
    if not SHARED.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{SHARED} is missing: CI must run the tests that read the reference data.")
        pytest.skip(f"{SHARED} is absent (a user's clone): reference-data tests skipped.")
    return SHARED


def mixed_table(n_rows: int = 400, seed: int = 0, missing: float = 0.0) -> pd.DataFrame:
    """A clinical-like mixed table with correlated numeric columns and optional missing values."""
    rng = np.random.default_rng(seed)
    age = rng.normal(55, 12, n_rows)
    weight = 20 + 0.8 * age + rng.normal(0, 8, n_rows)
    group = np.where(age + rng.normal(0, 8, n_rows) > 55, "older", "younger")
    frame = pd.DataFrame({
        "age": age.round().astype(int),
        "weight": weight.round(1),
        "score": rng.gamma(2.0, 3.0, n_rows).round(2),
        "group": group,
        "colour": rng.choice(["red", "green", "blue"], n_rows, p=[0.5, 0.3, 0.2]),
        "visit": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365, n_rows), unit="D"),
    })
    if missing:
        for name in ("weight", "colour"):
            frame[name] = frame[name].where(rng.random(n_rows) >= missing)
    return frame


@pytest.fixture
def table() -> pd.DataFrame:
    return mixed_table()
