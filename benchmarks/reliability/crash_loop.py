"""Kill ontoretrieve at random points of catalog load, index sync and proposal apply, repeatedly.

Each round, on a fresh data dir: `catalog load` is SIGKILLed after a random
delay, then checked and finished; the same for `index`, then for `apply` of a
one-class proposal (then rolled back). After every kill the data dir must be
consistent (every recorded version's graph present with its content hash, the
index state readable, retrieval answering) and the rerun must reach exactly
the state a clean run reaches: nothing lost, nothing half-written. Delays are
drawn from a seeded generator over each step's measured clean duration.

    python benchmarks/reliability/crash_loop.py --rounds 10 --out crash.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "tests/fixtures/mini.ttl", ROOT / "tests/fixtures/qudt-units-subset.ttl",
         ROOT / "catalog/w3c/time.ttl"]
MINI = "http://example.org/mini"
NEW = f"<{MINI}#Thermometer> a <http://www.w3.org/2002/07/owl#Class> ; " \
      f"<http://www.w3.org/2000/01/rdf-schema#label> \"thermometer\" ."
ENV = {**os.environ, "HF_HUB_OFFLINE": "1"}


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "ontoretrieve", *args]


def run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=900)


def killed(command: list[str], delay: float) -> dict[str, Any]:
    """Start, SIGKILL after ``delay`` s; say whether the kill landed mid-run."""
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env=ENV)
    try:
        child.wait(timeout=delay)
        return {"delay": round(delay, 2), "mid_run": False, "returncode": child.returncode}
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGKILL)
        child.wait()
        return {"delay": round(delay, 2), "mid_run": True, "returncode": child.returncode}


def consistent(data: Path) -> dict[str, Any]:
    """Every recorded version's graph is present and hashes to its content hash."""
    from ontoretrieve.backends import OxigraphStore
    from ontoretrieve.catalog.store import Catalog
    from ontoretrieve.index.state import IndexState
    from ontoretrieve.rdf.canonical import graph_hash

    store = OxigraphStore.open(data / "oxigraph")
    try:
        catalog = Catalog(store)
        versions = catalog.versions(include_inactive=True)
        # A graph is whole when it equals what a clean load of its content stores.
        # (Oxigraph stores some typed literals canonically, "1"^^xsd:nonNegativeInteger
        # as xsd:integer, so a file's content hash is not the hash of its stored graph.)
        # A version an apply stored as a layer is its base's graph plus its own.
        broken = [v.source for v in versions
                  if graph_hash(catalog.graph_triples(v)) != _reference_hash(v)]
        current = {(Path(v.source).name, v.content_hash) for v in versions
                   if v.status == "current"}
    finally:
        store.close()
    state_path = data / "index" / "default" / "state.json"
    state = IndexState.load(state_path) if state_path.exists() else None  # raises if torn
    return {"versions": len(versions), "broken_graphs": broken, "current": sorted(current),
            "index_state": None if state is None else len(state.ontologies)}


_REFERENCE: dict[str, str] = {}


def _reference_hash(version: Any) -> str:
    """The hash of the graph a clean load stores for this version."""
    if version.origin == "proposal":
        return str(version.content_hash)  # computed from stored triples already
    if version.content_hash not in _REFERENCE:
        from ontoretrieve.backends import OxigraphStore
        from ontoretrieve.catalog.store import Catalog
        from ontoretrieve.rdf.canonical import graph_hash

        clean = OxigraphStore.in_memory()
        Catalog(clean).load(Path(version.source))
        loaded = Catalog(clean).versions()[0]
        _REFERENCE[version.content_hash] = graph_hash(clean.graph_triples(loaded.graph))
    return _REFERENCE[version.content_hash]


def index_whole(data: Path) -> None:
    """The index holds exactly one point per atom of each indexed version, no more."""
    from ontoretrieve.index.build import open_query_index
    from ontoretrieve.settings import load_settings

    index, state = open_query_index(load_settings(data_dir=data))
    try:
        for content_hash, indexed in state.ontologies.items():
            points = index.count(content_hash)
            if points != indexed.atoms:
                raise AssertionError(f"{indexed.ontology_iri}: {points} points for "
                                     f"{indexed.atoms} atoms")
        assert index.count() == sum(o.atoms for o in state.ontologies.values())
    finally:
        index.close()


def retrieval_answers(data: Path, text: str = "a 5 mV signal from a sensor") -> list[str]:
    done = run(cli("retrieve", text, "--data-dir", str(data), "--json", "--mode", "vector"))
    if done.returncode != 0:
        raise AssertionError(f"retrieve failed: {done.stderr[-500:]}")
    return list(json.loads(done.stdout)["terms"])


def calibrate(work: Path, folder: Path) -> dict[str, float]:
    data = work / "calibrate"
    times: dict[str, float] = {}
    for name, command in (("load", cli("catalog", "load", str(folder), "--data-dir",
                                       str(data), "--json")),
                          ("index", cli("index", "--data-dir", str(data), "--json"))):
        started = time.perf_counter()
        assert run(command).returncode == 0
        times[name] = time.perf_counter() - started
    proposal = write_proposal(work, data)
    started = time.perf_counter()
    done = run(cli("apply", str(proposal), "--data-dir", str(data), "--json"))
    assert done.returncode == 0, done.stderr
    times["apply"] = time.perf_counter() - started
    times["reference"] = consistent(data)  # type: ignore[assignment]
    shutil.rmtree(data)
    return times


def write_proposal(work: Path, data: Path) -> Path:
    listed = run(cli("catalog", "list", "--data-dir", str(data), "--json"))
    base = next(o["content_hash"] for o in json.loads(listed.stdout)["ontologies"]
                if o["ontology_iri"] == MINI)
    path = work / "proposal.json"
    path.write_text(json.dumps({"updates": [{"ontology_iri": MINI, "base_hash": base,
                                              "add": NEW}]}))
    return path


def one_round(work: Path, folder: Path, rng: random.Random, times: dict[str, Any],
              n: int) -> dict[str, Any]:
    data = work / f"round{n}"
    record: dict[str, Any] = {}
    # 1. catalog load
    record["load"] = killed(cli("catalog", "load", str(folder), "--data-dir", str(data),
                                "--json"), rng.uniform(0.5, times["load"] * 1.1))
    record["load"]["after_kill"] = consistent(data) if (data / "oxigraph").exists() else None
    assert run(cli("catalog", "load", str(folder), "--data-dir", str(data))).returncode == 0
    after = consistent(data)
    assert not after["broken_graphs"] and after["current"] == sorted(
        tuple(c) for c in times["reference_loaded"]), after
    # 2. index sync
    record["index"] = killed(cli("index", "--data-dir", str(data), "--json"),
                             rng.uniform(1.0, times["index"] * 1.1))
    state = consistent(data)
    record["index"]["after_kill"] = state
    if state["index_state"]:
        retrieval_answers(data)  # a half-synced index still answers
    assert run(cli("index", "--data-dir", str(data))).returncode == 0
    index_whole(data)
    assert "http://qudt.org/vocab/unit/MilliV" in retrieval_answers(data)
    # 3. proposal apply
    proposal = write_proposal(work, data)
    record["apply"] = killed(cli("apply", str(proposal), "--data-dir", str(data), "--json"),
                             rng.uniform(0.5, times["apply"] * 1.1))
    state = consistent(data)
    record["apply"]["after_kill"] = state
    assert not state["broken_graphs"]
    retrieval_answers(data)  # serving whatever the kill left
    assert run(cli("index", "--data-dir", str(data))).returncode == 0
    applied = run(cli("apply", str(proposal), "--data-dir", str(data), "--json"))
    record["apply"]["landed_before_kill"] = applied.returncode != 0 and "stale" in (
        applied.stdout + applied.stderr)
    assert applied.returncode == 0 or record["apply"]["landed_before_kill"], applied.stderr
    assert f"{MINI}#Thermometer" in retrieval_answers(data, "a thermometer")
    index_whole(data)  # the new version's points, none written twice, the old gone
    shutil.rmtree(data)
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="ontoretrieve-crash-") as tmp:
        work = Path(tmp)
        folder = work / "catalog"
        folder.mkdir()
        for file in FILES:
            shutil.copy(file, folder / file.name)
        started = time.perf_counter()
        times = calibrate(work, folder)
        data = work / "loaded"
        run(cli("catalog", "load", str(folder), "--data-dir", str(data)))
        times["reference_loaded"] = consistent(data)["current"]
        shutil.rmtree(data)
        rounds = []
        for n in range(args.rounds):
            rounds.append(one_round(work, folder, rng, times, n))
            print(f"round {n + 1}/{args.rounds} ok", file=sys.stderr)
    kills = [r[step] for r in rounds for step in ("load", "index", "apply")]
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M"), "rounds": args.rounds, "seed": args.seed,
        "clean_seconds": {k: round(v, 1) for k, v in times.items()
                          if isinstance(v, float)},
        "kills": len(kills), "kills_mid_run": sum(k["mid_run"] for k in kills),
        "by_step": {step: sum(r[step]["mid_run"] for r in rounds)
                    for step in ("load", "index", "apply")},
        "broken_graphs_after_kills": sum(len((k.get("after_kill") or {}).get(
            "broken_graphs", [])) for k in kills),
        "recovered": len(rounds), "seconds": round(time.perf_counter() - started),
        "rounds_detail": rounds,
    }
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "rounds_detail"}, indent=2))


if __name__ == "__main__":
    main()
