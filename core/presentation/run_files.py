"""A run's files, of one table or of linked tables alike (the Report page's downloads, the zip of SPEC 12): its
metrics as JSON text, its report (HTML or PDF), and its avatars to share: one table's as a CSV (shuffled), linked
tables' in one zip of each table's avatars as ``<table>.csv`` (shuffled, new keys), ``metrics.json``,
``report.html`` and ``report.pdf``.

The zip's members carry a fixed date, so that the same run gives the same bytes.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

from core.engine.io import csv_bytes, json_text
from core.presentation.metrics_json import run_json
from core.presentation.report import ReportDocument, html_report, report_document
from core.workflows.linked_run import LinkedRun
from core.workflows.run import GenerationRun
from core.workflows.runs import Run

METRICS_FILE, REPORT_NAME = "metrics.json", "report"
REPORT_SUFFIXES = (".html", ".pdf")  # the report's formats, by the name's ending
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


def report_bytes(run: Run, suffix: str) -> bytes:
    """The report of ``run`` in the current language, as the ``suffix`` (one of :data:`REPORT_SUFFIXES`) asks: a
    self-contained HTML page or an A4 PDF."""
    return rendered(report_document(run), suffix)


def rendered(document: ReportDocument, suffix: str) -> bytes:
    """``document`` as an HTML page (``.html``) or an A4 PDF (``.pdf``)."""
    if suffix == ".pdf":
        from core.presentation.report_pdf import pdf_report  # reportlab and matplotlib: only for a PDF

        return pdf_report(document)
    return html_report(document).encode("utf-8")


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
    document = report_document(run)
    members.update({f"{REPORT_NAME}{suffix}": rendered(document, suffix) for suffix in REPORT_SUFFIXES})
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=_FIXED_DATE), data, compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()
