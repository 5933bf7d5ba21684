"""What the tests and the benchmarks share: generated tables and the dashboard started on localhost.

A support module, not a test module: benchmarks import it, and no test lives here.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
from babel.messages.pofile import read_po
from scipy.spatial.distance import cdist

from core.engine.schema import apply_kinds, resolve_kinds
from core.i18n import DOMAIN, LOCALES

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_dashboard(port: int, log=subprocess.DEVNULL, *options: str) -> subprocess.Popen:
    """The dashboard, started as `make run` does (its address from .streamlit/config.toml), with Streamlit's
    ``options`` besides."""
    server = subprocess.Popen(
        [sys.executable, "-m", "dashboard.serve", "--server.port", str(port), *options],
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



def excel_zip_bomb(path: Path, rows: int = 11_000_000) -> Path:
    """A valid .xlsx of a header ``x`` over ``rows`` rows of 1 (11 million: 290 MB of XML in a 0.7 MB file, a
    second to write): the parts of a one-cell workbook, its sheet's rows written anew, the same row over and over."""
    source = path.with_suffix(".seed.xlsx")
    pd.DataFrame({"x": [1]}).to_excel(source, index=False)
    row = b"<row><c><v>1</v></c></row>"
    per_block = 2**20 // len(row)
    with zipfile.ZipFile(source) as seed, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bomb:
        for part in seed.infolist():
            data = seed.read(part)
            if not part.filename.startswith("xl/worksheets/"):
                bomb.writestr(part, data)
                continue
            head, tail = data.split(b"<sheetData>")[0], data.split(b"</sheetData>")[1]
            with bomb.open(part.filename, "w", force_zip64=True) as sheet:
                sheet.write(head + b'<sheetData><row><c t="inlineStr"><is><t>x</t></is></c></row>')
                for _ in range(rows // per_block):
                    sheet.write(row * per_block)
                sheet.write(row * (rows % per_block) + b"</sheetData>" + tail)
    source.unlink()
    return path


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
    return typed_as(None, *frames)


def typed_as(overrides: dict[str, str] | None, *frames: pd.DataFrame):
    """The frames typed with the kinds detected on the first, ``overrides`` applied, and those kinds."""
    kinds = resolve_kinds(frames[0], overrides)
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


# Words of English prose that a French text does not hold (a table's values "yes" and "no" may: left out).
ENGLISH_WORDS = re.compile(r"\b(the|and|of|with|your|from|this|these|are|is|not|was|were|you|than|which)\b")


def french_messages() -> dict[str, str]:
    with (LOCALES / "fr" / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as handle:
        return {(entry.id if isinstance(entry.id, str) else entry.id[0]):
                (entry.string if isinstance(entry.string, str) else entry.string[-1])
                for entry in read_po(handle, locale="fr") if entry.id}


def english_fragments() -> set[str]:
    """The pieces of English messages between placeholders that a French page must not show: three words or more,
    not found in their own translation (a metric's name kept in English is not a fault)."""
    fragments = set()
    for english, french in french_messages().items():
        for piece in re.split(r"\{\w*[^{}]*\}|\*+|`|\n", english):
            piece = piece.strip(" .,:;()'\"-")
            if len(piece.split()) >= 3 and piece not in french:
                fragments.add(piece)
    return fragments


def english_left(texts: list[str], fragments: set[str], where: str) -> list[str]:
    """The texts shown in French that hold an English message's fragment or English words, each said with
    ``where`` it was seen."""
    found = []
    for text in texts:
        found += [f"{where}: {fragment!r} in {text[:120]!r}" for fragment in fragments if fragment in text]
        if ENGLISH_WORDS.search(text.lower()):
            found.append(f"{where}: English words in {text[:160]!r}")
    return found


class _ReportText(HTMLParser):
    """The text of an HTML report: its text nodes, and in its scripts the figures' texts and names."""

    FIGURE_TEXTS = re.compile(r'"(?:text|name|hovertemplate)":("(?:[^"\\]|\\.)*")')

    def __init__(self):
        super().__init__()
        self.texts, self.in_script = [], False

    def handle_starttag(self, tag, attrs):
        self.in_script = tag in ("script", "style")

    def handle_endtag(self, tag):
        self.in_script = False

    def handle_data(self, data):
        if self.in_script:
            self.texts += [json.loads(found) for found in self.FIGURE_TEXTS.findall(data)]
        elif data.strip():
            self.texts.append(data.strip())


def html_of(run) -> str:
    """The HTML report of ``run``, as the Report page and ``--report report.html`` write it."""
    from core.presentation.report import html_report, report_document

    return html_report(report_document(run))


def report_texts(html: str) -> list[str]:
    parser = _ReportText()
    parser.feed(html)
    return parser.texts


def as_read(markdown: str) -> str:
    """A text the dashboard escaped for ``st.markdown`` (``dashboard.text.plain``) as the user reads it."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def settled(app, timeout: float = 300.0):
    """An AppTest ``app`` once the job its last action left in the background has ended and been applied (the fix
    search a run that misses a target gets once it is shown, issue 51): run again until no job is left."""
    deadline = time.monotonic() + timeout
    while "job" in app.session_state:
        job = app.session_state["job"]
        while not job.done:
            assert time.monotonic() < deadline, f"{job.label} still running"
            time.sleep(0.05)
        app.run()
    return app


def wait_until_idle(page, timeout: float = 180.0) -> None:
    """Until the app has stopped running for a second and a half (Streamlit's running indicator gone)."""
    time.sleep(0.5)
    gone_for(page.locator('[data-testid="stStatusWidget"]'), timeout, "the app was still running")


def gone_for(shown, timeout: float, still: str, seconds: float = 1.5) -> None:
    """Until nothing matches the locator ``shown`` for ``seconds`` in a row (``still``: the error after ``timeout``)."""
    deadline, gone_since = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        if shown.count() == 0:
            gone_since = gone_since or time.monotonic()
            if time.monotonic() - gone_since >= seconds:
                return
        else:
            gone_since = None
        time.sleep(0.25)
    raise TimeoutError(still)


def served(address: str) -> bool:
    """Whether the server answers ``address`` with its content (not a 404, as for a download of an ended session)."""
    try:
        with urllib.request.urlopen(address, timeout=10) as answer:
            return answer.status == 200
    except urllib.error.HTTPError:
        return False
