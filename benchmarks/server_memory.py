"""The dashboard server's memory and its sessions apart (issue 46), in headless Chromium.

One session: a 20 000-row table uploaded, avatars generated 20 times in a row; the server's resident memory after
the first run and after the twentieth, then after the tab is closed (5, 30, 60 and 90 s), and whether the Report page's
download is still served once the session has ended. Then 8 sessions at once, each with its own table holding its
own marker values: all run together, each page's text, every websocket frame it received and its downloads searched
for the other sessions' markers.

    python -m benchmarks.server_memory [--runs 20] [--sessions 8]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from dashboard.sessions import SWEEP_S
from tests.support import CHROMIUM_FLAGS, free_port, mixed_table, served, start_dashboard, wait_until_idle

ROWS = 20_000
MARKED_ROWS = 4_000
WAITS = (5, 30, 60, 90)  # seconds after the tab closed (the session ends within 60: .streamlit/config.toml)
SUMMARY = re.compile(r"avatars of (\S+) made from .* with Avatar, k = \d+, seed")


def resident_mib(pid: int) -> float:
    """The process's resident memory (VmRSS), MiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024


def uploaded(page, port: int, path: Path, rows: int) -> None:
    page.goto(f"http://127.0.0.1:{port}")
    page.get_by_text("Upload files").click()
    page.locator("input[type=file]").set_input_files(str(path))
    page.get_by_text(f"{path.name}: {rows:,} rows").wait_for(timeout=120_000)
    page.get_by_role("link", name="Generate", exact=True).first.click()
    page.get_by_role("button", name="Generate avatars").wait_for()


def generated(page, seed: int) -> None:
    """Avatars made with ``seed`` (a run of its own), until its summary is shown and the app idle."""
    field = page.locator('input[aria-label="Seed"]')
    if not field.is_visible():
        page.get_by_text("More settings", exact=True).click()
    field.fill(str(seed))
    field.press("Tab")
    page.get_by_role("button", name="Generate avatars").click()
    page.get_by_text(re.compile(rf"with Avatar, k = \d+, seed {seed},")).first.wait_for(timeout=600_000)
    wait_until_idle(page, 600.0)


def report_download(page) -> tuple[str, bytes]:
    """The avatars' download on the Report page: its address and its bytes."""
    page.get_by_role("link", name="Report", exact=True).first.click()
    button = page.get_by_role("button", name=re.compile(r"^Avatars \(CSV"))
    button.wait_for(timeout=120_000)
    wait_until_idle(page, 600.0)
    if not button.is_enabled():
        page.get_by_text("I have read the verdict").click()
        wait_until_idle(page, 600.0)
    with page.expect_download() as download:
        button.click()
    return download.value.url, Path(download.value.path()).read_bytes()


def one_session(playwright, port: int, pid: int, folder: Path, runs: int) -> dict[str, object]:
    """Memory after the first run, after the last, after the tab closed; the download after the session ended."""
    path = folder / "patients.csv"
    mixed_table(ROWS, seed=1, missing=0.05).to_csv(path, index=False)
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_FLAGS)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    figures: dict[str, object] = {"before": resident_mib(pid)}
    uploaded(page, port, path, ROWS)
    time.sleep(2)
    figures["uploaded"] = resident_mib(pid)
    memory = []
    start = time.monotonic()
    for seed in range(runs):
        generated(page, seed + 1)
        time.sleep(2 * SWEEP_S + 1)  # the run replaced handed back within the sweeper's next two looks
        memory.append(resident_mib(pid))
    figures["runs_s"] = time.monotonic() - start
    figures["after_runs"] = memory
    url, _bytes = report_download(page)
    figures["download_served_while_open"] = served(url)
    figures["after_report"] = resident_mib(pid)
    context.close()
    closed = time.monotonic()
    for wait in WAITS:
        time.sleep(max(0.0, closed + wait - time.monotonic()))
        figures[f"closed_{wait}s"] = resident_mib(pid)
    figures["download_served_after_close"] = served(url)
    browser.close()
    return figures


def many_sessions(playwright, port: int, folder: Path, sessions: int) -> list[dict[str, object]]:
    """``sessions`` users at once, each with its own marker values in a column of its table."""
    markers = [f"marker{index}q{index * 7919 % 1000:03d}" for index in range(sessions)]
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_FLAGS)
    pages, frames = [], [[] for _ in range(sessions)]
    for index, marker in enumerate(markers):
        table = mixed_table(MARKED_ROWS, seed=10 + index)
        table["site"] = [f"{marker}_{row % 3}" for row in range(MARKED_ROWS)]  # each of its 3 values on a third
        path = folder / f"table{index}.csv"
        table.to_csv(path, index=False)
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.on("websocket", lambda socket, seen=frames[index]: socket.on(
            "framereceived", lambda frame: seen.append(frame if isinstance(frame, bytes) else frame.encode())))
        uploaded(page, port, path, MARKED_ROWS)
        pages.append(page)
    start = time.monotonic()
    for page in pages:  # clicked one after the other, without waiting: the runs overlap
        page.get_by_role("button", name="Generate avatars").click()
    outcome = []
    for index, page in enumerate(pages):
        page.get_by_text(SUMMARY).first.wait_for(timeout=900_000)
        wait_until_idle(page, 600.0)
        finished = time.monotonic() - start
        _url, download = report_download(page)
        text = (page.content() + page.locator("body").inner_text()).encode()
        seen = b"".join(frames[index]) + text + download
        others = [marker for other, marker in enumerate(markers) if other != index and marker.encode() in seen]
        outcome.append({"session": index, "finished_s": finished, "own_marker_in_download": markers[index].encode()
                        in download, "own_marker_in_frames": markers[index].encode() in b"".join(frames[index]),
                        "others_seen": others, "frames": len(frames[index])})
    browser.close()
    return outcome


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--sessions", type=int, default=8)
    arguments = parser.parse_args()
    port = free_port()
    server = start_dashboard(port)
    try:
        with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
            figures = one_session(playwright, port, server.pid, Path(folder), arguments.runs)
            runs = figures["after_runs"]
            print(f"server before any session: {figures['before']:.0f} MiB; the table uploaded, nothing run: "
                  f"{figures['uploaded']:.0f} MiB")
            print(f"after run 1: {runs[0]:.0f} MiB; after run {len(runs)}: {runs[-1]:.0f} MiB "
                  f"({100 * (runs[-1] / runs[0] - 1):+.1f} %); every run: {', '.join(f'{v:.0f}' for v in runs)}")
            print(f"{len(runs)} runs in {figures['runs_s']:.0f} s; after the Report page: {figures['after_report']:.0f}"
                  f" MiB")
            print("tab closed: " + ", ".join(f"{wait} s {figures[f'closed_{wait}s']:.0f} MiB" for wait in WAITS))
            print(f"the avatars' download served while the tab is open: {figures['download_served_while_open']}; "
                  f"after it closed: {figures['download_served_after_close']}")
            outcome = many_sessions(playwright, port, Path(folder), arguments.sessions)
            for row in outcome:
                print(f"session {row['session']}: finished at {row['finished_s']:.0f} s, its own marker in its "
                      f"download: {row['own_marker_in_download']}, in its {row['frames']} websocket frames: "
                      f"{row['own_marker_in_frames']}, other sessions' markers seen: {row['others_seen'] or 'none'}")
            print(f"server after the {arguments.sessions} sessions: {resident_mib(server.pid):.0f} MiB")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
