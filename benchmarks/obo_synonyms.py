"""Benchmark: do oboInOwl synonyms as labels (and IAO_0000115 as descriptions) help?

On the CRAFT units of ../shared/bench, two measures with ``index.obo_synonyms``
on and off:

A. lexical coverage (all units): the share of gold unit-term pairs where some
   mention of the term in the unit equals one of the term's surface forms
   (case-insensitive). No index needed.
B. lane recall (a fixed-seed sample of pairs): the first mention of the term,
   as a query, finds the gold IRI in the top 10 of the sparse lane, the core
   lane, and either. Needs an index of the OBO ontologies per setting, built by
   this script into DATA_DIR/synonyms_on and DATA_DIR/synonyms_off (reused
   when present). ``--files`` chooses the ontologies (default: all but GO,
   whose 47k terms take 15 minutes a build here); pairs whose gold term is in
   none of them are left out of B.

    python benchmarks/obo_synonyms.py ../shared/bench --data-dir /work/data/obo
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from datetime import UTC, datetime
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ontoretrieve.backends import OxigraphStore
from ontoretrieve.backends.vector_index import Lane
from ontoretrieve.catalog.files import parse_file
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.index.atomize import AtomSource, atomize
from ontoretrieve.index.build import make_embedder, open_query_index, sync_index
from ontoretrieve.settings import Settings, load_settings


def gold_pairs(units_file: Path) -> list[tuple[str, str, list[str]]]:
    """(unit id, gold IRI, mention texts) for every unit-term pair."""
    pairs = []
    for line in units_file.read_text().splitlines():
        unit = json.loads(line)
        for gold in unit["gold"]:
            pairs.append((unit["unit_id"], gold["iri"], [m[2] for m in gold["mentions"]]))
    return pairs


def surface_forms(files: list[Path], settings: Settings) -> dict[str, set[str]]:
    forms: dict[str, set[str]] = {}
    for path in files:
        parsed = parse_file(path)
        source = AtomSource(str(path), None, parsed.content_hash)
        for atom in atomize(parsed.triples, source, settings.index, settings.triggers):
            forms.setdefault(atom.iri, set()).update(x.casefold() for x in atom.labels)
    return forms


def lane_recall(settings: Settings, files: list[Path],
                sample: list[tuple[str, str, list[str]]], k: int) -> dict[str, float]:
    store = OxigraphStore.open(settings.data_dir / "oxigraph")
    embedder = make_embedder(settings)
    for path in files:
        Catalog(store).load(path)
    _, report = sync_index(settings, store, embedder=embedder)
    store.close()
    index, _ = open_query_index(settings)
    queries = [mentions[0] for _, _, mentions in sample]
    sparse = index.search(Lane.BM25, embedder.sparse_queries(queries), k)
    core = index.search(Lane.CORE, list(embedder.embed_queries(queries)), k)
    index.close()
    hits = {"sparse": 0, "core": 0, "either": 0}
    for (_, iri, _), s, c in zip(sample, sparse, core, strict=True):
        in_sparse = any(h.payload["iri"] == iri for h in s)
        in_core = any(h.payload["iri"] == iri for h in c)
        hits["sparse"] += in_sparse
        hits["core"] += in_core
        hits["either"] += in_sparse or in_core
    found = {f"recall@{k}_{lane}": round(n / len(sample), 4) for lane, n in hits.items()}
    found["index_atoms"] = report.atoms_total
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bench", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--files", nargs="+", default=[
        "craft-CL.ttl", "craft-SO.ttl", "craft-UBERON.ttl", "craft-MOP.ttl",
        "ncbitaxon-taxslim-2022-10-06.ttl"], help="OBO files for the lane recall indexes")
    args = parser.parse_args()
    obo_dir = args.bench / "catalog" / "obo"
    every_file = sorted(obo_dir.glob("*.ttl"))
    chosen = [obo_dir / name for name in args.files]
    pairs = gold_pairs(args.bench / "units" / "craft.jsonl")
    results: dict[str, object] = {}
    sample: list[tuple[str, str, list[str]]] = []
    for label, enabled in [("synonyms_on", True), ("synonyms_off", False)]:
        settings = load_settings(data_dir=args.data_dir / label,
                                 index={"obo_synonyms": enabled})
        started = time.perf_counter()
        forms = surface_forms(every_file, settings)
        covered = sum(any(m.casefold() in forms.get(iri, ()) for m in mentions)
                      for _, iri, mentions in pairs)
        if not sample:  # the same pairs for both settings
            indexed = set(surface_forms(chosen, settings))
            eligible = [p for p in pairs if p[1] in indexed]
            sample = random.Random(args.seed).sample(eligible, min(args.sample, len(eligible)))
        results[label] = {
            "lexical_coverage": round(covered / len(pairs), 4),
            **lane_recall(settings, chosen, sample, args.k),
            "seconds": round(time.perf_counter() - started, 1),
        }
    print(json.dumps({
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "pairs": len(pairs), "lane_recall_files": args.files, "sample": len(sample),
        "seed": args.seed, **results,
    }, indent=2))


if __name__ == "__main__":
    main()
