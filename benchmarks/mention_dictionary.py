"""Benchmark: the mention dictionary of a data directory, built, kept, loaded and scanned.

Each measurement runs in a fresh process on its own copy of the tenant's
``mentions/`` folder (the data directory is only read), so a build is a real
build, a load a real load from disk, and the resident memory a process's:

- ``build``: the dictionary made from the versions' kept keys (read from
  disk) and written: what a process does when the versions changed;
- ``load``: a fresh process reading the kept dictionary (what every
  process start does), with the growth of its resident memory;
- ``scan``: ``find`` over the texts of a units file, per text;
- the kept file's size.

Sides, in turn and then in reverse each round: this checkout's code and, with
``--before DIR``, an older checkout's on the same venv (its editable finder set
aside). Each side's mentions of every text must be the same; the script stops
if not.

    python benchmarks/mention_dictionary.py ../shared/bench/units/craft.jsonl \\
        --data-dir /work/data/bench [--rounds 3] [--texts 500] [--before /tmp/old] \\
        [--out report.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

_CHILD = """
import dataclasses, gc, hashlib, json, sys, time
from pathlib import Path
checkout, data_dir, folder, units, count = sys.argv[1:6]
if checkout:  # an editable install's finder comes before PYTHONPATH: set it aside
    sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f)]
    sys.path.insert(0, checkout)
from ontoretrieve import load_settings
from ontoretrieve.index.build import mention_store, query_state
from ontoretrieve.index.mention_store import MentionStore

def resident_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

settings = load_settings(data_dir=Path(data_dir))
key = mention_store(settings).key
hashes = sorted(query_state(settings).ontologies)
store = MentionStore(Path(folder), key)
kept = sorted(Path(folder).glob("dictionary-*.pickle"))
for path in kept:  # build: none kept
    path.unlink()
started = time.perf_counter()
dictionary = store.dictionary(hashes)
built = time.perf_counter() - started
size = sum(p.stat().st_size for p in Path(folder).glob("dictionary-*.pickle"))
texts = [json.loads(line)["text"] for line in open(units, encoding="utf-8")][:int(count)]
started = time.perf_counter()
found = [[dataclasses.astuple(m) for m in dictionary.find(t)] for t in texts]
scanned = time.perf_counter() - started
print(json.dumps({"build_s": round(built, 3), "file_mb": round(size / 2**20, 1),
                  "scan_ms_per_text": round(1000 * scanned / len(texts), 3),
                  "mentions": hashlib.sha256(json.dumps(found).encode()).hexdigest()}))
"""
"""Build (and keep) the dictionary, then scan the texts with it."""

_LOAD = """
import gc, sys, time
from pathlib import Path
checkout, data_dir, folder = sys.argv[1:4]
if checkout:
    sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f)]
    sys.path.insert(0, checkout)
from ontoretrieve import load_settings
from ontoretrieve.index.build import mention_store, query_state
from ontoretrieve.index.mention_store import MentionStore

def resident_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

settings = load_settings(data_dir=Path(data_dir))
store = MentionStore(Path(folder), mention_store(settings).key)
hashes = sorted(query_state(settings).ontologies)
gc.collect()
before = resident_mb()
started = time.perf_counter()
dictionary = store.dictionary(hashes)
print(round(time.perf_counter() - started, 3), round(resident_mb() - before))
"""
"""Load the kept dictionary in a fresh process: seconds, resident MB it added."""


def _side(checkout: Path | None, data_dir: Path, units: Path, texts: int) -> dict[str, Any]:
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "mentions"
        shutil.copytree(data_dir / "index" / "default" / "mentions", folder)
        common = [str(checkout or ""), str(data_dir), str(folder)]
        built = json.loads(subprocess.run(
            [sys.executable, "-c", _CHILD, *common, str(units), str(texts)],
            check=True, capture_output=True, text=True, env=env).stdout.splitlines()[-1])
        seconds, grown = subprocess.run(
            [sys.executable, "-c", _LOAD, *common], check=True, capture_output=True,
            text=True, env=env).stdout.split()
    return {**built, "load_s": float(seconds), "load_rss_mb": int(grown)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("units", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--texts", type=int, default=500, help="texts scanned per run")
    parser.add_argument("--before", type=Path, help="a checkout of an older commit")
    parser.add_argument("--out", type=Path, help="write the report here too")
    args = parser.parse_args()
    sides = {"this": None, **({"before": args.before} if args.before else {})}
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    for turn in range(args.rounds):
        for side in (list(sides) if turn % 2 == 0 else list(reversed(sides))):
            run = _side(sides[side], args.data_dir, args.units, args.texts)
            runs[side].append(run)
            print(f"{side}: {run}", file=sys.stderr)
    digests = {r["mentions"] for side in runs.values() for r in side}
    if len(digests) != 1:
        raise SystemExit(f"the sides found different mentions: {sorted(digests)}")
    keys = ("build_s", "load_s", "load_rss_mb", "file_mb", "scan_ms_per_text")
    report = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {platform.python_version()}, {os.cpu_count()} cores",
        "rounds": args.rounds, "texts": args.texts, "mentions_equal": True,
        "medians": {side: {k: round(statistics.median(r[k] for r in rs), 3) for k in keys}
                    for side, rs in runs.items()},
        "runs": runs,
    }
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
