"""A run's files, of one table or of linked tables alike (the Report page's downloads, the zip of SPEC 12): its
metrics as JSON text, its report, and its avatars to share: one table's as a CSV (shuffled), linked tables' in one
zip of each table's avatars as ``<table>.csv`` (shuffled, new keys), ``metrics.json`` and ``report.html``.

The zip's members carry a fixed date, so that the same run gives the same bytes.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

from core.engine.io import csv_bytes, json_text
from core.presentation.metrics_json import run_json
from core.presentation.report import build_html_report
from core.workflows.linked_run import LinkedRun
from core.workflows.run import GenerationRun
from core.workflows.runs import Run

METRICS_FILE, REPORT_FILE = "metrics.json", "report.html"
_FIXED_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest a zip member can carry


@dataclass(frozen=True)
class SharedFile:
    """The avatars to share as one file: its bytes, its name's ending and its media type."""

    data: bytes
    suffix: str
    mime: str


def metrics_text(run: Run) -> str:
    """The metrics JSON of ``run``, as the command line's ``--json`` writes it."""
    return json_text(run_json(run))


def report_text(run: Run) -> str:
    """The self-contained HTML report of ``run`` (in the current language)."""
    return build_html_report(run)


def shared_file(run: Run) -> SharedFile:
    """The avatars to share: one table's as a CSV, linked tables' zip (see :func:`linked_archive`)."""
    if isinstance(run, GenerationRun):
        return SharedFile(csv_bytes(run.avatars), ".csv", "text/csv")
    assert isinstance(run, LinkedRun)  # the other kind of run
    return SharedFile(linked_archive(run), ".zip", "application/zip")


def linked_archive(run: LinkedRun) -> bytes:
    """The zip of every table's avatars, the metrics and the report of ``run`` (in the current language)."""
    members = {f"{name}.csv": csv_bytes(run.fitted.avatars_[name]) for name in run.dataset.top_down()}
    members[METRICS_FILE] = metrics_text(run).encode("utf-8")
    members[REPORT_FILE] = report_text(run).encode("utf-8")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=_FIXED_DATE), data, compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()
