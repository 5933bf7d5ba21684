"""Dashboard responsiveness on a 10 000-row table, measured in headless Chromium.

Prints: the time from clicking "Generate avatars" to the progress bar showing, the
time of the whole run, and the time from choosing another variable on the Utility
page to its distribution figure being drawn (the results are already computed).

    python -m benchmarks.dashboard
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.support import CHROMIUM_FLAGS, free_port, mixed_table, start_dashboard


def main() -> None:
    port = free_port()
    server = start_dashboard(port)
    try:
        with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
            table = Path(folder) / "patients.csv"
            mixed_table(10_000, missing=0.05).to_csv(table, index=False)
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_FLAGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"http://127.0.0.1:{port}")
            page.get_by_text("Upload files").click()
            page.locator("input[type=file]").set_input_files(str(table))
            page.get_by_text("patients.csv: 10,000 rows").wait_for(timeout=60_000)
            page.get_by_role("link", name="Generate", exact=True).first.click()
            page.get_by_role("button", name="Generate avatars").wait_for()

            start = time.perf_counter()
            page.get_by_role("button", name="Generate avatars").click()
            progress_or_result = page.get_by_role("progressbar").or_(page.get_by_text("5,000 avatars of patients.csv"))
            progress_or_result.first.wait_for(timeout=10_000)
            progress_shown = time.perf_counter() - start
            page.get_by_text("5,000 avatars of patients.csv").wait_for(timeout=120_000)
            run_done = time.perf_counter() - start

            page.get_by_role("link", name="Utility", exact=True).first.click()
            page.locator(".js-plotly-plot").nth(3).wait_for(timeout=30_000)
            redraws = []
            for name in ("weight", "score", "group", "colour", "age"):
                box = page.get_by_role("combobox").first
                start = time.perf_counter()
                box.click()
                box.fill(name)
                box.press("Enter")
                page.get_by_text(f"Distribution of {name}: originals and avatars").wait_for(timeout=30_000)
                redraws.append(time.perf_counter() - start)
            browser.close()
    finally:
        server.terminate()
    print(f"progress bar (or the result) shown {progress_shown:.2f} s after the click; "
          f"run finished after {run_done:.2f} s")
    print(f"figure redraw after choosing another variable: median {statistics.median(redraws):.2f} s, "
          f"max {max(redraws):.2f} s ({len(redraws)} changes)")


if __name__ == "__main__":
    main()
