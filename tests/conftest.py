"""Shared fixtures: generated mixed tables and the reference data of ../shared (read in place)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, settings

from tests.support import mixed_table

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


@pytest.fixture
def table() -> pd.DataFrame:
    return mixed_table()
