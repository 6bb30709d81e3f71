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
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import CHECKOUT_PREAMBLE, RESIDENT_MB, emit, in_turn_and_reverse, medians, stamp

_CHILD = CHECKOUT_PREAMBLE + """
import dataclasses, gc, hashlib, json, time
from pathlib import Path
from ontoretrieve import load_settings
from ontoretrieve.index.build import mention_store, query_state
from ontoretrieve.index.mention_store import MentionStore
""" + RESIDENT_MB + """
mode, data_dir, folder = sys.argv[2:5]
settings = load_settings(data_dir=Path(data_dir))
store = MentionStore(Path(folder), mention_store(settings).key)
hashes = sorted(query_state(settings).ontologies)
if mode == "load":  # the kept dictionary, in a fresh process
    gc.collect()
    before = resident_mb()
    started = time.perf_counter()
    dictionary = store.dictionary(hashes)  # held while its memory is read
    print(json.dumps({"load_s": round(time.perf_counter() - started, 3),
                      "load_rss_mb": round(resident_mb() - before)}))
    sys.exit()
units, count = sys.argv[5:7]
for path in Path(folder).glob("dictionary-*.pickle"):  # build: none kept
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
"""``build``: build (and keep) the dictionary, then scan the texts with it; ``load``: load
the kept one (seconds, resident MB it added)."""


def _side(checkout: Path | None, data_dir: Path, units: Path, texts: int) -> dict[str, Any]:
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "mentions"
        shutil.copytree(data_dir / "index" / "default" / "mentions", folder)
        def child(mode: str, *more: str) -> dict[str, Any]:
            done = subprocess.run(
                [sys.executable, "-c", _CHILD, str(checkout or ""), mode, str(data_dir),
                 str(folder), *more], check=True, capture_output=True, text=True, env=env)
            result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
            return result

        return {**child("build", str(units), str(texts)), **child("load")}


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
    for side in in_turn_and_reverse(list(sides), args.rounds):
        run = _side(sides[side], args.data_dir, args.units, args.texts)
        runs[side].append(run)
        print(f"{side}: {run}", file=sys.stderr)
    digests = {r["mentions"] for side in runs.values() for r in side}
    if len(digests) != 1:
        raise SystemExit(f"the sides found different mentions: {sorted(digests)}")
    keys = ("build_s", "load_s", "load_rss_mb", "file_mb", "scan_ms_per_text")
    emit({**stamp(), "rounds": args.rounds, "texts": args.texts, "mentions_equal": True,
          "medians": medians(runs, keys),
          "runs": runs}, args.out)


if __name__ == "__main__":
    main()
