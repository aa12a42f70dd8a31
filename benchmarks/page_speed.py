"""How long each page of the app takes to draw in a real browser, against a hello-world floor.

Two Streamlit servers run side by side: ``app.py`` with a private cache, and a bare
hello-world page (a title and a line) on the same Streamlit, the peer every page is
measured against in the same run (machines here are noisy: the ratios are what to read).
Per page of the menu, driven by Playwright and Debian's Chromium at 1440 x 900:

- cold draw: a first visit in a new browser context (an empty HTTP cache: the browser
  fetches Streamlit's frontend) until its script run is over and the title is drawn;
- warm draw: a new tab of that context (a returning visitor, or a second tab);
- server s / server CPU s: the server's own script time for one draw (wall and CPU, from
  ``HEB_RUN_TIMES``, the log ``explorer.run_timing`` writes);
- control s: one control of the page moved (a tab, a slider step, the benchmark's Run),
  until its run is drawn; cached s: the control moved back, served from the caches;
- the floor's cold and warm draws, before and after the pages, and each page's ratio to
  their mean.

A screenshot of each page after its control is written to ``--screenshots`` (default a
temporary folder, named in the output), and the table to ``timings-per-page.json`` there.
Nothing is asserted: the browser tests (``tests/test_browser_links.py``) check that every
page's link reproduces its view; this script measures.

Run from the repository root (needs ``chromium`` and ``playwright``)::

    python benchmarks/page_speed.py
    python benchmarks/page_speed.py --screenshots /tmp/screens --pages compare lesson_evidence
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.peers import CHROMIUM  # noqa: E402
from tests.test_browser import (  # noqa: E402
    BASE_QUERY,
    CHROMIUM_ARGS,
    CONTROLS,
    DRAWN,
    REPO,
    SERVER_RUNS,
    SMALL_VIEWPORT,
    _open,
    screenshot,
    server_runs,
    server_time_since,
    streamlit_server,
    timed,
    track_frames,
)

#: the floor of any page: a title and a line, served by the same Streamlit
HELLO_WORLD = 'import streamlit as st\n\nst.title("Hello")\nst.write("world")\n'
#: the columns of the per-page timing table
TIMING_COLUMNS = (
    "cold draw",
    "warm draw",
    "cold / floor",
    "warm / floor",
    "server s",
    "server CPU s",
    "control s",
    "cached s",
)


def first_draw(context, url: str) -> float:
    """Seconds until a new tab of ``context`` on ``url`` has its first script run drawn
    (the tab is closed then)."""
    tab = context.new_page()
    start = time.perf_counter()
    tab.goto(url, wait_until="commit")
    tab.wait_for_function(DRAWN, timeout=300_000)
    elapsed = time.perf_counter() - start
    tab.close()
    return elapsed


def cold_and_warm(browser, url: str) -> tuple:
    """A first visit in a new browser context, then a new tab of the same context:
    (cold seconds, warm seconds, the context, the warm tab, left open)."""
    context = browser.new_context(viewport=SMALL_VIEWPORT)
    context.on("page", track_frames)
    cold = first_draw(context, url)
    tab, warm = _open(context, url)
    return cold, warm, context, tab


def floor_row(browser, floor_url: str, name: str) -> dict:
    """Cold and warm first draws of the hello-world page (the floor, same Streamlit)."""
    cold, warm, context, _ = cold_and_warm(browser, floor_url)
    context.close()
    return {"page": name, "control": "-", "cold draw": cold, "warm draw": warm}


def page_row(browser, app_url: str, path: str, control: str | None, actions, shots: Path):
    """One page's row of the table (and its screenshot after the control)."""
    logged = len(server_runs())
    cold, warm, context, tab = cold_and_warm(browser, f"{app_url}/{path}?{BASE_QUERY}")
    row = {"page": path, "control": control or "-", "cold draw": cold, "warm draw": warm}
    wall, cpu = server_time_since(logged)  # both draws' runs: half is one draw's
    row["server s"], row["server CPU s"] = wall / 2, cpu / 2
    if path == "benchmark":
        run = tab.get_by_role("button", name="Run the benchmark")
        row["control s"] = timed(tab, run.click, timeout=300)
        row["cached s"] = timed(tab, run.click, timeout=300)
    elif actions is not None:
        there, back = actions(tab)
        row["control s"] = timed(tab, there)
        row["cached s"] = timed(tab, back)
    screenshot(tab, shots, f"1440-{path}", SMALL_VIEWPORT)
    context.close()
    return row


def print_table(rows: list[dict], floors: list[dict]) -> None:
    """The table, each draw with its ratio to the floor (the mean of its measurements)."""
    floor = {
        kind: statistics.mean(row[f"{kind} draw"] for row in floors) for kind in ("cold", "warm")
    }
    for row in rows:
        for kind in ("cold", "warm"):
            if f"{kind} draw" in row:
                row[f"{kind} / floor"] = row[f"{kind} draw"] / floor[kind]
    load = os.getloadavg()
    print(
        f"load average (1, 5, 15 min): {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} "
        f"on {os.cpu_count()} cores; cold = a new browser context (empty HTTP cache), "
        "warm = a new tab of that context; floor = a hello-world page on the same Streamlit"
    )
    print(f"{'page':<26}{'control':<16}" + "".join(f"{name:>14}" for name in TIMING_COLUMNS))
    for row in floors + rows:
        cells = "".join(
            f"{row[key]:>14.2f}" if key in row else f"{'-':>14}" for key in TIMING_COLUMNS
        )
        print(f"{row['page']:<26}{row['control']:<16}{cells}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screenshots", type=Path, help="folder for the PNGs and the JSON")
    parser.add_argument("--pages", nargs="+", help="only these pages (URL paths)")
    args = parser.parse_args(argv)
    if not CHROMIUM.is_file():
        print(f"chromium is not installed at {CHROMIUM} (apt-get install chromium)")
        return 2
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix="heb-page-speed-"))
    shots = args.screenshots or root / "screens"
    shots.mkdir(parents=True, exist_ok=True)
    SERVER_RUNS["path"] = root / "runs.jsonl"
    env = {
        **os.environ,
        "HEB_CACHE_DIR": str(root / "cache"),
        "HEB_RUN_TIMES": str(SERVER_RUNS["path"]),
    }
    hello = root / "hello.py"
    hello.write_text(HELLO_WORLD)
    controls = [c for c in CONTROLS if not args.pages or c[0] in args.pages]
    with (
        streamlit_server(REPO / "app.py", root, env) as app_url,
        streamlit_server(hello, root, dict(os.environ)) as floor_url,
        sync_playwright() as driver,
    ):
        browser = driver.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        # the server's first run imports plotly, pandas and the engine: its own row, so
        # that the pages are measured on a running server, as a visitor meets them
        logged = len(server_runs())
        context = browser.new_context(viewport=SMALL_VIEWPORT)
        _, first = _open(context, f"{app_url}/?{BASE_QUERY}")
        context.close()
        wall, cpu = server_time_since(logged)
        rows = [{"page": "(server's first run)", "control": "-", "cold draw": first}]
        rows[0] |= {"server s": wall, "server CPU s": cpu}
        floors = [floor_row(browser, floor_url, "hello world (floor)")]
        for path, control, actions in controls:
            rows.append(page_row(browser, app_url, path, control, actions, shots))
        floors.append(floor_row(browser, floor_url, "hello world (again)"))
        browser.close()
    print_table(rows, floors)
    (shots / "timings-per-page.json").write_text(
        json.dumps({"load": os.getloadavg(), "floor": floors, "rows": rows}, indent=2)
    )
    print(f"screenshots and timings-per-page.json in {shots}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
