"""A new user's path in headless Chromium (Debian's chromium, driven by Playwright; no browser download).

Skipped, saying so, where chromium is absent; in CI (CI=true) it must run.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import pytest

from tests.support import CHROMIUM_FLAGS, free_port, mixed_table, start_dashboard

pytestmark = pytest.mark.browser
def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is missing: CI must run the browser tests (make test installs it as root).")
        pytest.skip("chromium is not installed: browser tests skipped (apt-get install chromium).")
    return path


def listening_addresses(port: int) -> set[str]:
    """The local addresses listening on ``port`` (Linux's /proc/net/tcp and tcp6, hexadecimal)."""
    addresses = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                addresses.add(address)
    return addresses


def test_the_dashboard_listens_on_this_computer_only(tmp_path):
    if not Path("/proc/net/tcp").exists():
        pytest.skip("no /proc/net/tcp: the listening address cannot be read on this system")
    port, log = free_port(), tmp_path / "streamlit.log"
    with log.open("w") as output:
        server = start_dashboard(port, output)
    try:
        loopback = {"0100007F", "00000000000000000000000001000000"}  # 127.0.0.1 and ::1, as the kernel writes them
        assert listening_addresses(port) and listening_addresses(port) <= loopback
    finally:
        server.terminate()
        server.wait(timeout=20)
    text = log.read_text()
    assert f"URL: http://localhost:{port}" in text
    assert "Network URL" not in text and "External URL" not in text  # no address looked up, nothing asked outside


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


def download(page, button: str, path: Path) -> str:
    """Click a download button, save the file at ``path``, return its text."""
    with page.expect_download() as started:
        page.get_by_role("button", name=button).click()
    started.value.save_as(path)
    return path.read_text()


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

    page.get_by_role("link", name="Analysis", exact=True).first.click()  # nothing runs before the user asks
    page.get_by_role("button", name="Run the suggested analyses").click()  # the group statistics its names suggest
    page.get_by_text("Mean age by group").first.wait_for(timeout=90_000)

    open_page(page, "Report and downloads")
    wait_until_idle(page)
    confirmation = page.get_by_text("I have read the verdict")
    if page.get_by_text("Not ready to share").count():  # the download waits for the user to say they read it
        assert page.get_by_role("button", name="Avatars (CSV, shuffled, 5,000 rows)").is_disabled()
        confirmation.click()
        wait_until_idle(page)
    assert download(page, "Avatars (CSV, shuffled, 5,000 rows)", tmp_path / "avatars.csv").count("\n") == 5_001
    report = tmp_path / "report.html"
    download(page, "Report (HTML, opens offline)", report)
    text = report.read_text()
    assert text.startswith("<!DOCTYPE html>") and "patients.csv" in text and "Hidden rate" in text
    assert "Does the analysis still hold" in text and "Mean age by group" in text
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


def upload(page, tmp_path, rows: int) -> None:
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    page.get_by_text("Upload a file").click()
    table = tmp_path / "patients.csv"
    mixed_table(rows, missing=0.05).to_csv(table, index=False)
    page.locator("input[type=file]").set_input_files(str(table))
    page.get_by_text(f"patients.csv: {rows:,} rows, 6 columns").wait_for(timeout=60_000)


def generate(page, expected: str) -> None:
    open_page(page, "Generate avatars")
    page.get_by_role("button", name="Generate avatars").click()
    page.get_by_text(expected).wait_for(timeout=120_000)


def sidebar_text(page) -> str:
    return page.locator('[data-testid="stSidebar"]').inner_text()


def test_going_back_to_data_keeps_the_uploaded_table_and_the_run(page, tmp_path):
    upload(page, tmp_path, 2_000)
    generate(page, "1,000 avatars of patients.csv")
    open_page(page, "Data")
    page.get_by_text("uploaded earlier in this session").wait_for(timeout=30_000)
    assert page.get_by_text("patients.csv: 2,000 rows, 6 columns").is_visible()
    assert "Table: patients.csv (2,000 rows)" in sidebar_text(page)
    assert "Avatars: Avatar, k = 10, seed 0" in sidebar_text(page) and "No avatars yet" not in sidebar_text(page)
    open_page(page, "Report and downloads")
    assert page.get_by_text("1,000 avatars of patients.csv").is_visible()


def remove_choices(page, box: int, values: list[str]) -> None:
    """Take values out of the Trade-off form's multiselect number ``box`` (0: k, 1: epsilon)."""
    chooser = page.locator('[data-testid="stMultiSelect"]').nth(box)
    for value in values:
        chooser.get_by_role("button", name=f"Remove {value}", exact=True).click()


def wait_until_idle(page, timeout: float = 180.0) -> None:
    """Until the app has stopped running for a second and a half (Streamlit's running indicator gone)."""
    running = page.locator('[data-testid="stStatusWidget"]')
    deadline, idle_since = time.monotonic() + timeout, None
    time.sleep(0.5)
    while time.monotonic() < deadline:
        if running.count() == 0:
            idle_since = idle_since or time.monotonic()
            if time.monotonic() - idle_since >= 1.5:
                return
        else:
            idle_since = None
        time.sleep(0.25)
    raise TimeoutError("the app was still running")


def run_sweep(page) -> None:
    page.get_by_role("button", name="Run the sweep").click()
    wait_until_idle(page)
    page.get_by_text("Take a setting").wait_for(timeout=30_000)


def choose(page, box_label: str, option: str) -> None:
    box = page.get_by_role("combobox", name=box_label, exact=True)
    box.click()
    box.fill(option)
    box.press("Enter")
    wait_until_idle(page)


def chosen(page, box_label: str) -> str:
    return page.get_by_role("combobox", name=box_label, exact=True).input_value()


def test_a_second_sweep_compares_the_settings_its_boxes_show(page):
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    open_page(page, "Trade-off explorer")
    remove_choices(page, 1, ["0.1", "1", "10"])
    remove_choices(page, 0, ["20", "50"])
    run_sweep(page)
    choose(page, "Second", "k = 10")
    remove_choices(page, 0, ["2"])
    run_sweep(page)
    shown = [chosen(page, "First"), chosen(page, "Second")]
    headers = page.locator('[data-testid="stTable"] th').all_inner_texts()
    assert shown == ["k = 5", "k = 10"] and [h.strip() for h in headers[1:3]] == shown


def test_taking_a_setting_makes_it_the_run_in_the_sidebar_and_the_generate_form(page):
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    generate(page, "1,000 avatars of demo_clinical.csv")
    open_page(page, "Trade-off explorer")
    remove_choices(page, 1, ["0.1", "1", "10"])
    remove_choices(page, 0, ["2", "20", "50"])
    run_sweep(page)
    choose(page, "Setting", "k = 5")
    page.get_by_role("button", name="Make k = 5 the current run").click()
    page.get_by_text("k = 5 is now the current run").wait_for(timeout=60_000)
    assert "Avatars: Avatar, k = 5, seed 0" in sidebar_text(page)
    open_page(page, "Generate avatars")
    assert page.locator('[data-testid="stSliderThumbValue"]').first.inner_text() == "5"
    assert page.get_by_text("avatars of demo_clinical.csv made from").first.inner_text().count("k = 5") == 1


def test_the_sweep_shows_the_seeds_range_without_overlapping_labels(page):
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    open_page(page, "Trade-off explorer")
    run_sweep(page)  # the defaults: five k values, three epsilon values, three seeds each
    assert page.get_by_text("its bars reach the lowest and the highest value a seed gave").is_visible()
    boxes = page.locator(".js-plotly-plot").first.locator("g.textpoint text").evaluate_all(
        "texts => texts.map(t => { const b = t.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })"
    )
    assert len(boxes) >= 5
    crossing = [(a, b) for i, a in enumerate(boxes) for b in boxes[:i]
                if min(a[2], b[2]) > max(a[0], b[0]) + 1 and min(a[3], b[3]) > max(a[1], b[1]) + 1]
    assert crossing == []
    page.get_by_text("All the figures, as a table").click()
    table = page.locator('[data-testid="stDataFrame"]').first
    table.wait_for()
    main = page.locator('[data-testid="stMainBlockContainer"]').bounding_box()
    shown = table.bounding_box()
    assert shown["x"] >= main["x"] and shown["x"] + shown["width"] <= main["x"] + main["width"] + 1


def test_the_avatars_of_every_row_are_one_click_away(page, tmp_path):
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    generate(page, "1,000 avatars of demo_clinical.csv")
    assert page.get_by_text("Half of the 2,000 rows (1,000) will be set aside").is_visible()
    page.get_by_role("button", name="Make the avatars to share from all 2,000 rows with these settings").click()
    page.get_by_text("Their privacy, measured on all rows").wait_for(timeout=120_000)
    open_page(page, "Report and downloads")
    wait_until_idle(page)
    if page.get_by_text("Not ready to share").count():  # the verdict of the avatars of all rows, above the download
        page.get_by_text("I have read the verdict").click()
        wait_until_idle(page)
    assert download(page, "Avatars of all 2,000 rows (CSV, shuffled)", tmp_path / "all.csv").count("\n") == 2_001
    assert page.get_by_role("button", name="Avatars (CSV, shuffled, 1,000 rows)").is_visible()


def test_the_tradeoff_explorer(page):
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    open_page(page, "Trade-off explorer")
    page.get_by_role("button", name="Run the sweep").click()
    page.get_by_text("Take a setting").wait_for(timeout=120_000)
    assert page.get_by_text("keeps the most signal").count() + page.get_by_text("No setting meets").count() \
        + page.get_by_text("are a tie on signal").count() == 1
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    assert chart.locator(".point").count() >= 5  # one marker per k value at least
    page.get_by_role("button", name="Make k = 2 the current run").click()
    page.get_by_text("k = 2 is now the current run").wait_for(timeout=60_000)
    open_page(page, "Privacy")
    page.get_by_text("Hidden rate", exact=True).wait_for()


def test_the_privacy_page_answers_three_questions_and_runs_the_attacks_chosen(page):
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    generate(page, "1,000 avatars of demo_clinical.csv")
    assert page.get_by_text("Ready to share").count() + page.get_by_text("Not ready to share").count() >= 1
    open_page(page, "Privacy")
    for question in ("Singling out", "Linkability", "Inference"):
        page.get_by_role("heading", level=2).filter(has_text=question).wait_for(timeout=30_000)
    assert page.get_by_text("Choose the variables an attacker could know").count() >= 1
    for label, values in (("could know", ["age", "sex", "department"]), ("Sensitive variables", ["diabetes"])):
        field = page.locator('[data-testid="stMultiSelect"]').filter(has_text=label).first.locator("input")
        for value in values:
            field.click()
            field.fill(value)
            field.press("Enter")
            wait_until_idle(page)
        page.keyboard.press("Escape")  # close the list of choices
    page.get_by_role("button", name="Run the attacks").click()
    wait_until_idle(page)
    page.get_by_text("Links made for").wait_for(timeout=60_000)
    page.get_by_text("diabetes:").first.wait_for(timeout=30_000)
    assert page.get_by_text("Choose the variables an attacker could know").count() == 0
    page.get_by_text("Each real person coloured by how exposed they are").wait_for(timeout=30_000)


def test_a_french_browser_gets_french_and_the_switch_keeps_the_table_the_run_and_the_choices(dashboard, tmp_path):
    """SPEC section 11: the browser's language first; the sidebar's switch changes every text and keeps the rest."""
    from playwright.sync_api import sync_playwright

    url, chromium = dashboard
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        page = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="fr-FR").new_page()
        page.goto(url)
        page.get_by_role("heading", level=1).filter(has_text="Données").wait_for(timeout=60_000)
        page.get_by_text("Importer un fichier").click()
        table = tmp_path / "patients.csv"
        mixed_table(2_000, missing=0.05).to_csv(table, index=False)
        page.locator("input[type=file]").set_input_files(str(table))
        page.get_by_text("Table\u00a0: patients.csv (2\u202f000 lignes)").wait_for(timeout=60_000)
        page.get_by_role("link", name="Générer", exact=True).click()
        page.get_by_role("button", name="Générer les avatars").click()
        page.get_by_text("1\u202f000 avatars de patients.csv").wait_for(timeout=120_000)
        page.get_by_role("link", name="Utilité", exact=True).click()
        page.locator(".js-plotly-plot").nth(1).wait_for(timeout=30_000)
        choose(page, "Comparer les distributions de", "score")
        page.locator('[data-testid="stSidebar"]').get_by_text("English", exact=True).click()
        page.get_by_role("heading", level=1).filter(has_text="Utility").wait_for(timeout=30_000)
        wait_until_idle(page)
        assert chosen(page, "Compare the distributions of") == "score"
        assert "Table: patients.csv (2,000 rows)" in sidebar_text(page)
        assert "Avatars: Avatar, k = 10, seed 0" in sidebar_text(page)
        page.get_by_role("link", name="Generate", exact=True).click()
        page.get_by_text("1,000 avatars of patients.csv").wait_for(timeout=30_000)
        browser.close()


def test_a_run_goes_on_whatever_page_the_user_opens_with_its_progress_in_the_sidebar(page, tmp_path):
    """Leaving the Generate page during a run threw it away, silently (issue 27): it now goes on, its step and time
    in the sidebar, and lands as the current run."""
    upload(page, tmp_path, 60_000)
    open_page(page, "Generate avatars")
    page.get_by_role("button", name="Generate avatars").click()
    page.get_by_role("progressbar").first.wait_for(timeout=30_000)
    page.get_by_role("link", name="Utility", exact=True).first.click()
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Avatars with Avatar, k = 10").wait_for(timeout=30_000)
    assert re.search(r"… \(\d+ s\)", sidebar_text(page)), sidebar_text(page)  # the step named, the seconds so far
    sidebar.get_by_text("Avatars: Avatar, k = 10, seed 0").wait_for(timeout=180_000)
    sidebar.get_by_text("Avatars with Avatar, k = 10").wait_for(state="detached", timeout=30_000)  # the job ended
    open_page(page, "Generate avatars")
    page.get_by_text("30,000 avatars of patients.csv").wait_for(timeout=30_000)


BEACON = "http://127.0.0.1:9/"  # nothing listens there: a request to it is the leak, refused by the route below


def hostile_table() -> bytes:
    """Markdown images and links, HTML and bare addresses in a table's column names and values."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 800
    return pd.DataFrame({
        f"![m]({BEACON}column.png)": rng.normal(50, 10, n).round(1),
        f"[link]({BEACON}column)": rng.normal(5, 1, n).round(2),
        "<b>bold</b>": rng.choice([f"![v]({BEACON}value.png)", f"<a href='{BEACON}a'>x</a>", f"{BEACON}bare"], n),
        "group": rng.choice(["a", "b"], n),
    }).to_csv(index=False).encode()


def test_no_page_requests_anything_but_the_apps_own_address_nor_shows_a_link_from_the_data(dashboard):
    """The page icon fetched from fonts.gstatic.com on every page; a file or column named with a markdown image made
    the page fetch it, a link became a link, ``<b>`` rendered bold in the figures (issue 27, items 4 and 11)."""
    from playwright.sync_api import sync_playwright

    url, chromium = dashboard
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        outside = []
        context.on("request", lambda request: outside.append(request.url) if not request.url.startswith(
            (url, "data:", "blob:")) else None)
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith((url, "data:", "blob:"))
                      else route.abort())
        page = context.new_page()
        page.goto(url)
        page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
        page.get_by_text("Upload a file").click()
        page.locator("input[type=file]").set_input_files({"name": f"![x]({BEACON}file.png).csv", "mimeType": "text/csv",
                                                          "buffer": hostile_table()})
        page.get_by_text("800 rows, 4 columns").wait_for(timeout=60_000)
        links, bold = [], []

        def look() -> None:
            wait_until_idle(page)
            links.extend(page.eval_on_selector_all("a[href], img[src]", "nodes => nodes.map(n => n.href || n.src)"
                                                   ".filter(a => a.includes('127.0.0.1:9'))"))
            bold.extend(page.eval_on_selector_all("b, strong", "nodes => nodes.map(n => n.textContent)"
                                                  ".filter(t => t.includes('bold'))"))

        look()
        generate(page, "400 avatars of")
        look()
        for link, title in (("Utility", "Utility"), ("Privacy", "Privacy"), ("Trade-off", "Trade-off explorer"),
                            ("Report", "Report and downloads"), ("Analysis", "Does my analysis still hold?")):
            page.get_by_role("link", name=link, exact=True).first.click()
            page.get_by_role("heading", level=1).filter(has_text=title).wait_for(timeout=30_000)
            look()
        page.get_by_role("button", name="Run the suggested analyses").click()
        page.get_by_text("Mean [link]").first.wait_for(timeout=60_000)  # the group statistics of each number
        look()
        browser.close()
    assert outside == [] and links == [] and bold == []
