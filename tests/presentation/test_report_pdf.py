"""The PDF report (core/presentation/report_pdf.py, figure_image.py): A4, numbered pages, every section in order,
its figures as images, its text selectable and as written, the same bytes for the same run, and nothing fetched."""

import io
import re
import subprocess
import sys
import warnings
from pathlib import Path

import plotly.graph_objects as go
import pytest
from pypdf import PdfReader

from core.engine.parameters import Parameters
from core.i18n import language
from core.metrics.attack import Knowledge
from core.presentation.figure_image import drawable, figure_png
from core.presentation.report import Figure, report_document
from core.presentation.report_pdf import pdf_report
from core.workflows.plan import ColumnPlan
from core.workflows.release import Decision, Release
from core.workflows.run import generate_judged
from tests.support import mixed_table

ROOT = Path(__file__).resolve().parents[2]
SECTIONS = ["1. Purpose, recipient and data subjects", "2. The data", "3. The attacker", "4. Method and parameters",
            "5. Who stood out before", "6. Privacy: the three criteria", "7. Verdict, fix and utility kept",
            "8. Limitations and the controller's decision"]
A4_POINTS = (595.2756, 841.8898)


@pytest.fixture(scope="module")
def run():
    frame = mixed_table(600, seed=5).rename(columns={"colour": "<b>colour</b> & $x$"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return generate_judged(frame, ColumnPlan(knowledge=Knowledge(known=("age", "group"), sensitive=("score",))),
                               Parameters(k=5, seed=1), table_name="t.csv", fingerprint="ab" * 32,
                               release=Release(purpose="a course", recipient="contract", decision=Decision(
                                   accepted_by="J. Doe", date="2026-12-06")))


def text_of(data: bytes) -> tuple[PdfReader, str]:
    reader = PdfReader(io.BytesIO(data))
    return reader, "\n".join(page.extract_text() for page in reader.pages)


def test_the_pdf_is_a4_numbered_with_every_section_in_order_and_a_figure_per_figure(run):
    document = report_document(run)
    reader, text = text_of(pdf_report(document))
    pages = len(reader.pages)
    assert pages >= 4 and all((round(float(page.mediabox.width), 2), round(float(page.mediabox.height), 2)) ==
                              tuple(round(side, 2) for side in A4_POINTS) for page in reader.pages)
    assert all(f"page {number} of {pages}" in reader.pages[number - 1].extract_text() for number in (1, pages))
    flat = re.sub(r"\s+", " ", text)
    at = [flat.index(section) for section in SECTIONS]
    assert at == sorted(at)
    assert flat.index("Not ready to share" if not run.ready else "Ready to share") < at[0]  # the verdict first
    images = sum(len(page.images) for page in reader.pages)
    assert images == sum(isinstance(block, Figure) for block in document.blocks) >= 5
    assert "ab" * 32 in flat and "a course" in flat and "J. Doe" in flat and "2026-12-06" in flat
    assert "<b>colour</b> & $x$" in flat  # the user's text as written: no markup, no mathematics
    assert "repU" in flat and "DiSCO" in flat and "S_pMSE" in flat


def test_the_same_document_gives_the_same_bytes_and_the_report_exists_in_french(run):
    document = report_document(run)
    assert pdf_report(document) == pdf_report(document)
    with language("fr"):
        _reader, text = text_of(pdf_report(report_document(run)))
    flat = re.sub(r"\s+", " ", text)
    assert "page 1 sur" in flat and "3. L'attaquant" in flat and "8. Limites et décision du responsable" in flat


def test_an_undecided_release_says_not_yet_decided():
    frame = mixed_table(300, seed=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = generate_judged(frame, ColumnPlan(), Parameters(k=5, seed=1, holdout=False), table_name="t.csv",
                              fingerprint="")
    _reader, text = text_of(pdf_report(report_document(run)))
    flat = re.sub(r"\s+", " ", text)
    assert "not yet decided" in flat and "not stated" in flat
    assert "attacks' control" not in flat  # no attack ran: no control is claimed
    assert "300 real rows, every one used; 150 of them drawn as the reference; 300 avatars" in flat


def test_a_cell_taller_than_a_page_is_split_not_refused():
    # a helper's review: 700 column names in one cell (open data on a wide table) raised reportlab's LayoutError
    from core.presentation.report import ReportDocument, Table

    names = ", ".join(f"column_{index}" for index in range(3000))
    reader, text = text_of(pdf_report(ReportDocument("wide", [Table(["item", "value"], [["known", names]])])))
    assert len(reader.pages) >= 2 and "column_2999" in text


def test_each_kind_of_trace_is_drawn():
    figure = go.Figure([go.Bar(x=["a", "b"], y=[1, 2], text=["1", "2"], textposition="outside", name="bars"),
                        go.Scatter(x=["a", "b"], y=[2, 1], mode="lines+markers", name="line",
                                   error_x={"type": "data", "array": [0.1, 0.2]})])
    figure.add_vline(x=0.5, line_dash="dash", annotation_text="target")
    figure.update_layout(title="A <b>title</b><br><sup>with a note</sup>", height=400)
    png = figure_png(figure)
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    with pytest.raises(ValueError, match="a pie trace is not drawn"):
        figure_png(go.Figure(go.Pie(values=[1, 2])))


def test_a_character_the_fonts_cannot_draw_is_written_as_its_code_point_never_dropped():
    assert drawable("é Ω Ж\u00a0x\u202f;") == "é Ω Ж\u00a0x\u202f;"
    assert drawable("中 😀 \x00") == "[U+4E2D] [U+1F600] [U+0000]"
    frame = mixed_table(300, seed=8).rename(columns={"colour": "病名 😀"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = generate_judged(frame, ColumnPlan(), Parameters(k=5, seed=1), table_name="病名 😀.csv", fingerprint="")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib's "Glyph missing from font" (the column in the figures) among them
        _reader, text = text_of(pdf_report(report_document(run)))
    assert "Avatar report: [U+75C5][U+540D] [U+1F600].csv" in text


def test_no_request_leaves_the_machine_while_the_reports_are_made(tmp_path):
    # every lookup and connection fails in this process: a font, a script or an image fetched would stop the PDF
    script = f"""
import socket, warnings
def refused(*args, **kwargs):
    raise OSError("network used")
socket.getaddrinfo = socket.create_connection = refused
socket.socket.connect = socket.socket.connect_ex = refused
import pandas as pd
from core.engine.parameters import Parameters
from core.workflows.plan import ColumnPlan
from core.workflows.run import generate_judged
from core.presentation.run_files import report_bytes
from tests.support import mixed_table
warnings.simplefilter("ignore")
run = generate_judged(mixed_table(300, seed=7), ColumnPlan(), Parameters(k=5, seed=1), table_name="t.csv",
                      fingerprint="")
open({str(tmp_path / "r.pdf")!r}, "wb").write(report_bytes(run, ".pdf"))
open({str(tmp_path / "r.html")!r}, "wb").write(report_bytes(run, ".html"))
"""
    made = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF") and (tmp_path / "r.html").stat().st_size > 0
