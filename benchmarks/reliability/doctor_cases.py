"""``ontoretrieve doctor`` on each kind of damage: what it finds, what ``--repair`` does.

    python benchmarks/reliability/doctor_cases.py --catalog tests/fixtures --out OUT.json

For each case a fresh data directory is built from the catalog, damaged, then
examined by ``doctor --json`` and ``doctor --repair --json`` (separate processes,
as a user runs them), and a retrieval is tried after the repair. The triple
store cases check that the store folder is left byte for byte as it was.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ENV = {**os.environ, "HF_HUB_OFFLINE": "1"}


def _run(*args: str) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "ontoretrieve", *args], capture_output=True,
                          text=True, env=ENV, timeout=1800)
    return done.returncode, done.stdout


def _shard(data: Path) -> Path:
    tenant = data / "index" / "default"
    return tenant / json.loads((tenant / "state.json").read_text())["location"]


def _empty_shard(data: Path) -> None:
    for part in ("segments", "wal"):
        shutil.rmtree(_shard(data) / part)
        (_shard(data) / part).mkdir()


def _truncate_manifest(data: Path) -> None:
    manifest = next((data / "oxigraph").glob("MANIFEST-*"))
    with manifest.open("r+b") as handle:
        handle.truncate(10)


CASES: dict[str, Callable[[Path], None]] = {
    "healthy": lambda data: None,
    "shard folder deleted": lambda data: shutil.rmtree(_shard(data)),
    "segments and log emptied": _empty_shard,
    "leftover shard of a killed rebuild": lambda data: shutil.copytree(
        _shard(data), data / "index" / "default" / "edge_20260101000000_000001"),
    "store CURRENT deleted": lambda data: (data / "oxigraph" / "CURRENT").unlink(),
    "store MANIFEST truncated": _truncate_manifest,
}


def _digest(folder: Path) -> str:
    # RocksDB writes its info log (LOG, LOG.old.*) and LOCK on any open attempt: no data.
    files = sorted(p for p in folder.rglob("*") if p.is_file()
                   and p.name != "LOCK" and not p.name.startswith("LOG"))
    return hashlib.sha256(b"".join(p.name.encode() + p.read_bytes() for p in files)
                          ).hexdigest()[:12]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, required=True)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="doctor-"))
    template = root / "template"
    code, _ = _run("index", "--catalog", str(args.catalog), "--data-dir", str(template),
                   "--json")
    assert code in (0, 1), "the template index did not build"
    results: list[dict[str, Any]] = []
    for name, damage in CASES.items():
        data = root / name.replace(" ", "-")
        shutil.copytree(template, data)
        damage(data)
        store_before = _digest(data / "oxigraph")
        started = time.perf_counter()
        found_code, found = _run("doctor", "--json", "--data-dir", str(data))
        repair_code, repaired = _run("doctor", "--repair", "--json", "--data-dir", str(data))
        after_code, _ = _run("retrieve", "a sensor observes a property", "--data-dir",
                             str(data))
        results.append({
            "case": name, "doctor_exit": found_code,
            "found": [f"{f['verdict']}: {f['check']}" for f in json.loads(found)["findings"]],
            "repair_exit": repair_code,
            "repaired": [f"{f['verdict']}: {f['check']}"
                         for f in json.loads(repaired)["findings"]],
            "retrieve_after_exit": after_code,
            "store_unchanged": _digest(data / "oxigraph") == store_before
            if "store" in name else None,
            "seconds": round(time.perf_counter() - started, 1)})
        print(json.dumps(results[-1]), flush=True)
    shutil.rmtree(root, ignore_errors=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
