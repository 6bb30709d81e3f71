"""Benchmark: `ontoretrieve catalog load` of a whole catalog, cold then unchanged.

Runs the real CLI in a child process on a fresh data directory, so the numbers
are what a user sees: wall time and the child's peak RSS, for a first load and
for a reload of the unchanged catalog (which must cost almost nothing).

    python benchmarks/catalog_load.py ../shared/bench/catalog
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path


def run_load(catalog: Path, data_dir: Path) -> dict[str, object]:
    """One `catalog load` in a child; its wall time, peak RSS and report."""
    with tempfile.TemporaryFile("w+") as stdout:
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "ontoretrieve", "catalog", "load", str(catalog),
             "--data-dir", str(data_dir), "--json"],
            stdout=stdout, stderr=subprocess.DEVNULL,
        )
        # wait4 gives this child's own rusage (RUSAGE_CHILDREN would be the max
        # over every child so far).
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode not in (0, 1):
            raise SystemExit(f"catalog load failed with exit code {child.returncode}")
        stdout.seek(0)
        report = json.load(stdout)
    return {
        "wall_seconds": round(seconds, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "files_added": len(report["added"]),
        "files_unchanged": len(report["unchanged"]),
        "files_failed": len(report["failed"]),
        "triples": sum(v["triple_count"] for v in report["added"] + report["unchanged"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("catalog", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cold = run_load(args.catalog, Path(tmp))
        warm = run_load(args.catalog, Path(tmp))
    print(json.dumps({
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "catalog": str(args.catalog),
        "cold_load": cold,
        "unchanged_reload": warm,
    }, indent=2))


if __name__ == "__main__":
    main()
