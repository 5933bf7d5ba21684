"""The files of linked tables' avatars in one zip (the dashboard's download, SPEC 12's output): each table's
avatars as ``<table>.csv`` (shuffled, new keys), the metrics as ``metrics.json``, the report as ``report.html``.

The members carry a fixed date, so that the same run gives the same bytes.
"""

from __future__ import annotations

import io
import json
import zipfile

from core.engine.io import csv_bytes
from core.presentation.metrics_json import linked_json
from core.presentation.report import build_linked_report
from core.workflows.linked_run import LinkedRun

METRICS_FILE, REPORT_FILE = "metrics.json", "report.html"
_FIXED_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest a zip member can carry


def linked_metrics_text(run: LinkedRun) -> str:
    """The metrics JSON of ``run`` (the command line's ``--json`` of ``avatarize --tables``)."""
    return json.dumps(linked_json(run.evaluation, run.verdict, run.parameters_json()), indent=2, allow_nan=False)


def linked_archive(run: LinkedRun) -> bytes:
    """The zip of every table's avatars, the metrics and the report of ``run`` (in the current language)."""
    members = {f"{name}.csv": csv_bytes(run.fitted.avatars_[name]) for name in run.dataset.top_down()}
    members[METRICS_FILE] = linked_metrics_text(run).encode("utf-8")
    members[REPORT_FILE] = build_linked_report(run).encode("utf-8")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=_FIXED_DATE), data, compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()
