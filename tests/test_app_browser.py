"""A new user's path in headless Chromium (Debian's chromium, driven by Playwright; no browser download).

Skipped, saying so, where chromium is absent; in CI (CI=true) it must run.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import mixed_table

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is missing: CI must run the browser tests (make test installs it as root).")
        pytest.skip("chromium is not installed: browser tests skipped (apt-get install chromium).")
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_dashboard(port: int) -> subprocess.Popen:
    """The dashboard on localhost, started as `make run` does."""
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.headless", "true",
         "--server.address", "127.0.0.1"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
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


@pytest.fixture(scope="module")
def dashboard():
    chromium = chromium_path()
    port = free_port()
    server = start_dashboard(port)
    try:
        yield f"http://127.0.0.1:{port}", chromium
    finally:
        server.terminate()
        server.wait(timeout=20)


@pytest.fixture
def page(dashboard):
    from playwright.sync_api import sync_playwright

    url, chromium = dashboard
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("http://127.0.0.1",
                      "data:", "blob:", "file:")) else route.abort())  # nothing leaves the machine
        tab = context.new_page()
        tab.goto(url)
        yield tab
        browser.close()


def open_page(page, title: str) -> None:
    """Follow the sidebar link named by the page title's first word, then wait for that title."""
    page.get_by_role("link", name=title.split()[0], exact=True).first.click()
    page.get_by_role("heading", level=1).filter(has_text=title).wait_for(timeout=30_000)


def test_a_new_users_path(page, tmp_path):
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    page.get_by_text("Upload a file").click()
    table = tmp_path / "patients.csv"
    mixed_table(10_000, missing=0.05).to_csv(table, index=False)
    page.locator("input[type=file]").set_input_files(str(table))
    page.get_by_text("patients.csv: 10,000 rows, 6 columns").wait_for(timeout=60_000)

    open_page(page, "Generate avatars")
    page.get_by_role("button", name="Generate avatars").click()
    page.get_by_text("5,000 avatars of patients.csv").wait_for(timeout=120_000)

    open_page(page, "Utility")
    page.locator(".js-plotly-plot").nth(3).wait_for(timeout=30_000)
    assert page.get_by_text("Hellinger Mean").count() >= 1

    open_page(page, "Privacy")
    page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
    assert page.get_by_text("Hidden rate", exact=True).count() == 1

    open_page(page, "Report and downloads")
    with page.expect_download() as download:
        page.get_by_role("button", name="Avatars (CSV, shuffled)").click()
    avatars = tmp_path / "avatars.csv"
    download.value.save_as(avatars)
    assert avatars.read_text().count("\n") == 5_001
    with page.expect_download() as download:
        page.get_by_role("button", name="Report (HTML, opens offline)").click()
    report = tmp_path / "report.html"
    download.value.save_as(report)
    text = report.read_text()
    assert text.startswith("<!DOCTYPE html>") and "patients.csv" in text and "Hidden rate" in text
    offline = page.context.new_page()
    offline.goto(report.as_uri())  # every request but the file itself is refused: it must draw offline
    offline.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
    assert offline.locator(".js-plotly-plot").count() >= 4


def test_a_bad_upload_shows_a_message(page, tmp_path):
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    page.get_by_text("Upload a file").click()
    bad = tmp_path / "broken.csv"
    bad.write_bytes(b"a,b\n1,2\n3\n")
    page.locator("input[type=file]").set_input_files(str(bad))
    page.get_by_text("broken.csv could not be read as a table").wait_for(timeout=30_000)
    assert page.get_by_text("Traceback").count() == 0


def test_the_tradeoff_explorer(page):
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    open_page(page, "Trade-off explorer")
    page.get_by_role("button", name="Run the sweep").click()
    page.get_by_text("Take a setting").wait_for(timeout=120_000)
    assert page.get_by_text("keeps the most signal").count() + page.get_by_text("No setting meets").count() == 1
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    assert chart.locator(".point").count() >= 5  # one marker per k value at least
    page.get_by_role("button", name="Make k = 2 the current run").click()
    page.get_by_text("k = 2 is now the current run").wait_for(timeout=60_000)
    open_page(page, "Privacy")
    page.get_by_text("Hidden rate", exact=True).wait_for()
