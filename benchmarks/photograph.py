"""A plotly figure photographed by Debian's chromium (Playwright drives it; nothing is downloaded)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import plotly.graph_objects as go


def photograph(figure: go.Figure, path: Path, width: int, height: int) -> None:
    """``figure`` drawn at ``width`` x ``height`` pixels into the PNG ``path``."""
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("chromium is absent: the figures are not drawn.")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        page_path = Path(folder) / "figure.html"
        figure.write_html(page_path, include_plotlyjs=True)
        browser = playwright.chromium.launch(executable_path=chromium)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(page_path.as_uri())
        page.wait_for_timeout(1500)
        page.screenshot(path=str(path))
        browser.close()
