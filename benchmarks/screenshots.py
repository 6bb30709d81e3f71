"""Screenshots, with headless Chromium, of what a person reads: the HTTP API's /docs
page with the network closed, and the recall report's drill-down with one unit open.

    python benchmarks/screenshots.py --data-dir DATA --report RUN_DIR --out OUT

``DATA`` is a built data directory (``ontoretrieve index`` has run); ``RUN_DIR``
a finished ``ontoretrieve bench recall --out RUN_DIR``. A server is started on
``DATA`` on a free loopback port; Chromium resolves no host but 127.0.0.1
(``--host-resolver-rules``), so a page that needs a CDN renders blank. Writes
``OUT/docs.png``, ``OUT/report-drilldown.png`` and ``OUT/screenshots.json``
(what was shot, sizes, the unit opened). Needs Debian's ``chromium``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
OFFLINE = "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"


def shoot(url: str, target: Path, size: str = "1280,1000", wait_ms: int = 8000) -> None:
    """One headless Chromium screenshot of ``url``, no host but loopback resolvable."""
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
             f"--host-resolver-rules={OFFLINE}", f"--window-size={size}",
             f"--virtual-time-budget={wait_ms}", "--hide-scrollbars",
             f"--screenshot={target}", url],
            check=True, capture_output=True, timeout=120)


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
        shoot(f"{url}/docs", args.out / "docs.png")
    finally:
        process.terminate()
        process.wait(timeout=30)
    unit = _worst_unit(args.report)
    shoot(f"{(args.report / 'report.html').resolve().as_uri()}#{unit}",
          args.out / "report-drilldown.png", size="1280,1400", wait_ms=3000)
    record = {"chromium": subprocess.run([CHROMIUM, "--version"], capture_output=True,
                                         text=True).stdout.strip(),
              "resolver": OFFLINE, "docs": "docs.png", "drilldown": "report-drilldown.png",
              "unit_opened": unit,
              "bytes": {p.name: p.stat().st_size for p in args.out.glob("*.png")}}
    (args.out / "screenshots.json").write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record))


if __name__ == "__main__":
    main()
