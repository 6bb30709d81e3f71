"""Screenshots, with headless Chromium, of what a person reads: the HTTP API's /docs
page with the network closed, and the recall report's drill-down with one unit open.

    python benchmarks/screenshots.py --data-dir DATA --report RUN_DIR --out OUT

``DATA`` is a built data directory (``ontoretrieve index`` has run); ``RUN_DIR``
a finished ``ontoretrieve bench recall --out RUN_DIR``. A server is started on
``DATA`` on a free loopback port; Chromium resolves no host but 127.0.0.1
(``--host-resolver-rules``), so a page that needs a CDN renders blank. Writes
``OUT/docs.png``, ``OUT/report-drilldown.png`` and ``OUT/screenshots.json``
(what was shot, sizes, the unit opened, requests that failed). Needs Debian's
``chromium`` and the ``playwright`` package (its driver only: no browser download).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
OFFLINE = "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"


_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--host-resolver-rules={OFFLINE}"]


def shoot(url: str, target: Path, *, open_unit: str | None = None,
          height: int = 1000) -> dict[str, object]:
    """A screenshot of ``url`` in headless Chromium (driven by Playwright), no host but
    loopback resolvable; with ``open_unit``, that drill-down entry is clicked open and
    shot alone. Returns what the page showed (title, failed requests)."""
    from playwright.sync_api import sync_playwright

    failed: list[str] = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": height})
        page.on("requestfailed", lambda request: failed.append(request.url))
        page.goto(url, wait_until="networkidle")
        if open_unit is None:
            page.wait_for_selector(".opblock", timeout=15_000)  # Swagger UI rendered
            page.screenshot(path=str(target))
        else:
            entry = page.locator(f"details[id='{open_unit}']")
            entry.locator("summary").click()
            entry.screenshot(path=str(target))
        title = page.title()
        browser.close()
    return {"title": title, "failed_requests": failed}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "ontoretrieve", "serve", "--data-dir", str(data_dir),
         "--host", "127.0.0.1", "--port", str(port)], stderr=subprocess.DEVNULL,
        env={**os.environ, "HF_HUB_OFFLINE": "1"})
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            httpx.get(f"{url}/health", timeout=1)
            return process, url
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("serve did not start")


def _worst_unit(report_dir: Path) -> str:
    """The id of the first unit of the drill-down (the worst recall first)."""
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    start = page.index("<details id='unit-") + len("<details id='")
    return page[start:page.index("'", start)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--report", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    process, url = _serve(args.data_dir)
    try:
        docs = shoot(f"{url}/docs", args.out / "docs.png")
    finally:
        process.terminate()
        process.wait(timeout=30)
    unit = _worst_unit(args.report)
    report = shoot((args.report / "report.html").resolve().as_uri(),
                   args.out / "report-drilldown.png", open_unit=unit)
    record = {"chromium": subprocess.run([CHROMIUM, "--version"], capture_output=True,
                                         text=True).stdout.strip(),
              "resolver": OFFLINE, "docs": {"file": "docs.png", **docs},
              "drilldown": {"file": "report-drilldown.png", "unit_opened": unit, **report},
              "bytes": {p.name: p.stat().st_size for p in args.out.glob("*.png")}}
    (args.out / "screenshots.json").write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record))


if __name__ == "__main__":
    main()
