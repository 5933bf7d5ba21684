"""Hostile input on linked tables, schemas, declared relations and time series (issue 47): each works faithfully or
is refused in one line naming what to change (exit code 2, no traceback, nothing half-written)."""

import errno
import json

import numpy as np
import pandas as pd

import core.engine.io
from core.cli import main


def linked_tables(folder, patients: int = 40, stays: int = 100):
    """A patients table, their stays, and the schema linking them; the schema's path."""
    rng = np.random.default_rng(0)
    pd.DataFrame({"patient_id": range(1, patients + 1), "age": rng.integers(20, 90, patients)}).to_csv(
        folder / "patients.csv", index=False)
    pd.DataFrame({"stay_id": range(1, stays + 1), "patient_id": rng.integers(1, patients + 1, stays),
                  "days": rng.integers(1, 15, stays)}).to_csv(folder / "stays.csv", index=False)
    schema = {"tables": {"patients": {"path": "patients.csv", "primary_key": "patient_id"},
                         "stays": {"path": "stays.csv", "primary_key": "stay_id"}},
              "links": [{"parent": "patients", "key": "patient_id", "child": "stays", "foreign_key": "patient_id"}]}
    (folder / "schema.json").write_text(json.dumps(schema))
    return folder / "schema.json"


def test_a_disk_full_while_linked_tables_are_written_keeps_none_of_them(tmp_path, monkeypatch, capsys):
    """Issue 47, item 1: `patients.csv` was left without its `stays.csv`, and the full disk was a traceback."""
    schema, out = linked_tables(tmp_path), tmp_path / "out"
    original = core.engine.io._write_csv_rows

    def full_at_stays(frame, stream):
        if "stay_id" in frame.columns:  # the second table written
            raise OSError(errno.ENOSPC, "No space left on device")
        return original(frame, stream)

    monkeypatch.setattr(core.engine.io, "_write_csv_rows", full_at_stays)
    code = main(["avatarize", "--tables", str(schema), "--k", "3", "--no-holdout", "--out", str(out),
                 "--json", str(tmp_path / "metrics.json")])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert lines[0] == f"error: {out / 'stays.csv'}: could not be written (No space left on device); no output was kept."
    assert not (tmp_path / "metrics.json").exists() and not (out.exists() and any(out.iterdir()))
    monkeypatch.undo()
    assert main(["avatarize", "--tables", str(schema), "--k", "3", "--no-holdout", "--out", str(out)]) == 0
    assert sorted(path.name for path in out.iterdir()) == ["patients.csv", "stays.csv"]  # whole, and no leftovers
