"""Record the smoke suite's recall in benchmarks/smoke/baseline.json (what CI guards).

Runs ``bench recall`` on the smoke units and catalog in a fresh data
directory (the real model; the default settings and the reference profile,
``--ablation reference``) and writes, for each, overall and per-source
context and seed term recall and the mean context size in tokens, with the
date and machine.

    python benchmarks/smoke_baseline.py
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

SMOKE = Path(__file__).parent / "smoke"


def run_smoke(work: Path) -> dict[str, object]:
    """The smoke run's summary.json (base variant), run in a child process."""
    out = work / "run"
    subprocess.run([sys.executable, "-m", "ontoretrieve", "bench", "recall",
                    "--units", str(SMOKE / "units.jsonl"), "--catalog", str(SMOKE / "catalog"),
                    "--data-dir", str(work / "data"), "--out", str(out), "--no-warm-up",
                    "--ablation", "reference", "--json"], check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "HF_HUB_OFFLINE": "1"})
    summary: dict[str, object] = json.loads((out / "summary.json").read_text())
    return summary


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        summary = run_smoke(Path(work))
    record: dict[str, object] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "tolerance_points": 2.0,
        "variants": {},
    }
    for name in ("base", "reference"):
        found = summary["variants"][name]["summary"]  # type: ignore[index]
        record["variants"][name] = {  # type: ignore[index]
            "context_term_recall": found["overall"]["context_term_recall"],
            "seed_term_recall": found["overall"]["seed_term_recall"],
            "seeds_per_unit": found["overall"].get("seeds_per_unit"),
            "context_tokens": found["overall"]["context_tokens"]["mean"],
            "sources": {s: {"context_term_recall": v["context_term_recall"],
                            "seed_term_recall": v["seed_term_recall"]}
                        for s, v in found["sources"].items()},
        }
    (SMOKE / "baseline.json").write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
