"""What the tests and the benchmarks share: generated tables and the dashboard started on localhost.

A support module, not a test module: benchmarks import it, and no test lives here.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.spatial.distance import cdist

from core.engine.schema import apply_kinds, resolve_kinds

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_dashboard(port: int, log=subprocess.DEVNULL) -> subprocess.Popen:
    """The dashboard, started as `make run` does (its address from .streamlit/config.toml)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as answer:
                if answer.status == 200:
                    return server
        except OSError:
            time.sleep(0.3)
    server.kill()
    raise RuntimeError("the dashboard did not start within 60 s")



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


def typed(*frames: pd.DataFrame):
    """The frames typed with the kinds detected on the first, and those kinds."""
    kinds = resolve_kinds(frames[0])
    return [apply_kinds(frame, kinds) for frame in frames], kinds


def brute_force(originals_xy, avatars_xy):
    """The O(n^2) definitions of SPEC sections 6 and 6.1 (ties: equal within 1e-9 relative, broken at random)."""
    closer, tied = brute_force_ties(originals_xy, avatars_xy)
    to_originals = np.sort(cdist(avatars_xy, originals_xy), axis=1)
    ratio = np.where(to_originals[:, 1] > 0, to_originals[:, 0] / np.where(to_originals[:, 1] > 0, to_originals[:, 1], 1), 1.0)
    return {
        "hidden_rate": 100 * np.mean(np.where(closer > 0, 1.0, 1 - 1 / (tied + 1))),
        "local_cloaking": np.median(closer + tied / 2),
        "distance_to_closest": np.median(to_originals[:, 0]),
        "closest_distances_ratio": np.median(ratio),
    }


def brute_force_ties(originals_xy, avatars_xy):
    """Per original, the avatars strictly closer than its own and the others exactly as close (SPEC 6.1)."""
    distances = cdist(originals_xy, avatars_xy)
    own = np.diag(distances)[:, None]
    closer = (distances < own * (1 - 1e-9)).sum(axis=1)
    as_close = (np.abs(distances - own) <= own * 1e-9).sum(axis=1) - 1  # the own avatar apart
    return closer, np.maximum(as_close, 0)


def with_verdicts(point):
    """A sweep point built by hand from its values, with each seed's verdict per privacy target as a run gives it."""
    from core.metrics.registry import DEFINITIONS, TARGETS

    point.passed = {name: [DEFINITIONS[name].meets(value) for value in values]
                    for name, values in point.values.items() if name in TARGETS}
    return point
