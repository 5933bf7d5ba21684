"""The report as a PDF (A4, numbered pages, selectable text, figures as images), from the same blocks as the HTML
report (:class:`~core.presentation.report.ReportDocument`): a file a data-protection officer can file.

Laid out by reportlab, written with the DejaVu fonts matplotlib ships (every accent, the French non-breaking
spaces), the figures drawn by :mod:`core.presentation.figure_image`; nothing is fetched, nothing is installed but
wheels from PyPI. The same document gives the same bytes (reportlab's invariant mode: no creation time, no random
identifier). Text is escaped as the HTML report escapes it: only the markup the report builds (bold, a coloured
state, code) is read as markup.
"""

from __future__ import annotations

import io
import re
import threading
from pathlib import Path
from typing import Any

import matplotlib
from markupsafe import Markup, escape
from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    CondPageBreak,
    Flowable,
    Image,
    KeepTogether,
    ListFlowable,
    LongTable,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    TableStyle,
)

from core.i18n import _, current_language
from core.presentation.figure_image import drawable, figure_png
from core.presentation.report import Block, Bullets, Heading, ReportDocument, Table
from core.presentation.report import Paragraph as ReportParagraph

MARGIN = 16 * mm
TEXT_WIDTH = A4[0] - 2 * MARGIN
STATE_COLOURS = {"pass": "#2e8540", "good": "#2e8540", "fail": "#c0392b", "poor": "#c0392b", "fair": "#a87a00",
                 "muted": "#616e7c"}
SHORT_TABLE_ROWS = 12
FONT, BOLD, ITALIC, MONO = "DejaVuSans", "DejaVuSans-Bold", "DejaVuSans-Oblique", "DejaVuSansMono"


def pdf_report(document: ReportDocument) -> bytes:
    """``document`` as the bytes of an A4 PDF, its pages numbered "page n of N"."""
    _register_fonts()
    buffer = io.BytesIO()
    template = SimpleDocTemplate(buffer, pagesize=A4, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN,
                                 bottomMargin=MARGIN + 4 * mm, title=document.title, author="", subject="",
                                 creator="avatar-workbench", lang=current_language(), invariant=True)
    footer = document.title

    def numbered(*args: Any, **kwargs: Any) -> Canvas:
        return _NumberedCanvas(footer, *args, **kwargs)

    template.build(_flowables(document), canvasmaker=numbered)
    return buffer.getvalue()


class _NumberedCanvas(Canvas):
    """A canvas that holds its pages until the end, so that each can say "page n of N"."""

    def __init__(self, footer: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._footer, self._pages = footer, []  # type: ignore[var-annotated]

    def showPage(self) -> None:  # noqa: N802 (reportlab's name)
        self._pages.append(dict(self.__dict__))
        self._startPage()  # type: ignore[attr-defined]  # reportlab's own, untyped

    def save(self) -> None:
        total = len(self._pages)
        for page in self._pages:
            self.__dict__.update(page)
            self.setFont(FONT, 7.5)
            self.setFillColor(colors.HexColor("#616e7c"))
            self.drawString(MARGIN, MARGIN - 2 * mm, drawable(self._footer[:110]))
            self.drawRightString(A4[0] - MARGIN, MARGIN - 2 * mm, _("page {page} of {pages}").format(
                page=self.getPageNumber(), pages=total))
            super().showPage()
        super().save()


def _register_fonts() -> None:
    """The DejaVu fonts registered with reportlab, once (two sessions' first reports may be written at once)."""
    with _REGISTERING:
        if FONT in pdfmetrics.getRegisteredFontNames():
            return
        folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
        for name in (FONT, BOLD, ITALIC, MONO):
            pdfmetrics.registerFont(TTFont(name, str(folder / f"{name}.ttf")))
        pdfmetrics.registerFontFamily(FONT, normal=FONT, bold=BOLD, italic=ITALIC, boldItalic=BOLD)


_REGISTERING = threading.Lock()


_BODY = ParagraphStyle("body", fontName=FONT, fontSize=9, leading=12.5, alignment=TA_LEFT, spaceAfter=4)
_STYLES = {
    "h1": ParagraphStyle("h1", parent=_BODY, fontName=BOLD, fontSize=16, leading=20, spaceAfter=6),
    "h2": ParagraphStyle("h2", parent=_BODY, fontName=BOLD, fontSize=12.5, leading=16, spaceBefore=10, spaceAfter=5,
                         textColor=colors.HexColor("#1f2933")),
    "h3": ParagraphStyle("h3", parent=_BODY, fontName=BOLD, fontSize=10, leading=13, spaceBefore=6, spaceAfter=3),
    "muted": ParagraphStyle("muted", parent=_BODY, fontSize=8, leading=10.5, textColor=colors.HexColor("#616e7c")),
    "note": ParagraphStyle("note", parent=_BODY, backColor=colors.HexColor("#fff8e1"), borderPadding=4,
                           borderColor=colors.HexColor("#d9a21b"), borderWidth=0, spaceBefore=4, spaceAfter=8),
    "verdict": ParagraphStyle("verdict", parent=_BODY, fontName=BOLD, fontSize=13, leading=17, spaceAfter=6),
    "cell": ParagraphStyle("cell", parent=_BODY, fontSize=7.5, leading=9.5, spaceAfter=0),
    "head": ParagraphStyle("head", parent=_BODY, fontName=BOLD, fontSize=7.5, leading=9.5, spaceAfter=0),
}


def _flowables(document: ReportDocument) -> list[Flowable]:
    flowables: list[Flowable] = []
    for block in document.blocks:
        flowables += _block(block)
    return flowables


def _block(block: Block) -> list[Flowable]:
    if isinstance(block, Heading):
        # a heading never ends a page: the space its first lines need comes with it
        return [CondPageBreak(30 * mm), Paragraph(_markup(block.text), _STYLES[block.tag])]
    if isinstance(block, ReportParagraph):
        classes = (block.css or "").split()
        style = _STYLES["verdict"] if "verdict" in classes else _STYLES.get(classes[0] if classes else "", _BODY)
        state = next((STATE_COLOURS[name] for name in classes if name in STATE_COLOURS and "verdict" in classes), None)
        text = _markup(block.text)
        return [Paragraph(f'<font color="{state}">{text}</font>' if state else text, style)]
    if isinstance(block, Bullets):
        return [ListFlowable([Paragraph(_markup(item), _BODY) for item in block.items], bulletType="bullet",
                             start="•", leftIndent=12, bulletFontName=FONT), Spacer(1, 3)]
    if isinstance(block, Table):  # a short table kept on one page; a long one split, its header on each page
        table = _table(block.header, block.rows)
        short = len(block.rows) <= SHORT_TABLE_ROWS and all(len(_visible(cell)) <= 80 for row in block.rows
                                                             for cell in row)
        return [KeepTogether([table]) if short else table, Spacer(1, 6)]
    data = figure_png(block.figure)
    width, height = ImageReader(io.BytesIO(data)).getSize()
    shown = min(TEXT_WIDTH, (A4[1] - 2 * MARGIN - 20 * mm) * width / height)  # a tall figure fits the page
    return [KeepTogether([Image(io.BytesIO(data), width=shown, height=shown * height / width)]), Spacer(1, 6)]


def _table(header: Any, rows: Any) -> LongTable:
    """A table whose cells wrap, its columns as wide as their text asks (within the page), its header on every
    page it spans."""
    cells = [[Paragraph(_markup(cell), _STYLES["head"]) for cell in header],
             *([Paragraph(_markup(cell), _STYLES["cell"]) for cell in row] for row in rows)]
    widths = _column_widths([[_visible(cell) for cell in row] for row in [header, *rows]])
    table = LongTable(cells, colWidths=widths, repeatRows=1, splitInRow=1)  # a cell taller than a page splits
    table.setStyle(TableStyle([
        ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#cbd2d9")),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#f5f7fa")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), 3), ("RIGHTPADDING", (0, 0), (-1, -1), 3),
    ]))
    return table


def _column_widths(texts: list[list[str]]) -> list[float]:
    """Each column as wide as its text asks (up to 60 characters), never narrower than its longest word (in the
    header's bold), the whole as wide as the page's text."""
    padding = 8.0
    least = [max(pdfmetrics.stringWidth(word, BOLD, 7.5) for row in texts  # bold: a header, a state
                 for word in [*row[column].split(), "-"]) + padding for column in range(len(texts[0]))]
    asked = [max(pdfmetrics.stringWidth(row[column][:60], FONT, 7.5) for row in texts) + padding
             for column in range(len(texts[0]))]
    widths = [max(low, want * TEXT_WIDTH / sum(asked)) for low, want in zip(least, asked, strict=True)]
    spare = sum(width - low for width, low in zip(widths, least, strict=True))
    excess = sum(widths) - TEXT_WIDTH
    if excess > 0 and spare > 0:  # taken back from the columns wider than their least, in proportion
        widths = [width - excess * (width - low) / spare for width, low in zip(widths, least, strict=True)]
    return widths


_SPAN = re.compile(r"<span class='([a-z ]+)'>(.*?)</span>", re.DOTALL)


def _markup(text: object) -> str:
    """A block's text as reportlab's paragraph markup: plain text escaped, the report's own markup (bold, a
    coloured state, code) translated."""
    html = str(text) if isinstance(text, Markup) else str(escape("" if text is None else str(text)))
    html = drawable(html)  # the tags and entities are ASCII: only the text's own characters can change
    html = _SPAN.sub(lambda found: f'<font color="{STATE_COLOURS.get(found.group(1), "#1f2933")}"><b>'
                                   f'{found.group(2)}</b></font>', html)
    html = html.replace("<code>", f'<font face="{MONO}">').replace("</code>", "</font>")
    return re.sub(r"<br\s*/?>", "<br/>", html)


def _visible(text: object) -> str:
    return re.sub(r"<[^>]+>", "", str(text))
