"""Benchmark: seed term recall, recall at rank 10, seeds per unit, seed-path latency.

The query path up to the seeds only (no context), for the base settings and
each ``--variant`` (comma-separated GROUP.FIELD=VALUE pairs), over the same
fixed-seed sample as ``ontoretrieve bench recall``. Meant for iterating on
the seed rules: with ``--memo`` the window embeddings are computed once and
reused by every variant (latencies are then not comparable; leave it off to
time). Context recall and the paired comparison are ``bench recall`` and
``bench compare``'s job.

    python benchmarks/seed_recall.py ../shared/bench/units/{craft,measeval,t2k_dbpedia}.jsonl \\
        --data-dir /work/data/bench --sample 300 --seed 1 \\
        --variant reference --variant seeds.evidence_ratio=0.4
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ontoretrieve.backends.vector_index import SparseVector
from ontoretrieve.bench.runner import parse_sets
from ontoretrieve.bench.units import BenchUnit, read_units, sample_units
from ontoretrieve.index.build import make_embedder, tenant_dir
from ontoretrieve.index.embed import Embedder
from ontoretrieve.index.state import IndexState
from ontoretrieve.query.seeder import SeedRetriever
from ontoretrieve.settings import Settings, load_settings


class MemoEmbedder:
    """An embedder that computes each query text once (for comparing seed rules)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.dense: dict[str, Any] = {}
        self.sparse: dict[str, SparseVector] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed_queries(self, texts: Sequence[str]) -> Any:
        missing = [t for t in dict.fromkeys(texts) if t not in self.dense]
        if missing:
            for text, vector in zip(missing, self.inner.embed_queries(missing), strict=True):
                self.dense[text] = vector
        return np.stack([self.dense[t] for t in texts])

    def sparse_queries(self, texts: Sequence[str]) -> list[SparseVector]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.sparse]
        if missing:
            for text, vector in zip(missing, self.inner.sparse_queries(missing), strict=True):
                self.sparse[text] = vector
        return [self.sparse[t] for t in texts]


def variant_settings(spec: str, data_dir: Path) -> Settings:
    if spec == "base":
        return load_settings(data_dir=data_dir)
    if spec == "reference":
        return load_settings("reference", data_dir=data_dir)
    profile, _, rest = spec.partition(":") if ":" in spec else ("", "", spec)
    sets = parse_sets([p for p in rest.split(",") if p])
    return load_settings(profile or None, data_dir=data_dir, **sets)


def measure(retriever: SeedRetriever, units: Sequence[BenchUnit],
            scopes: dict[str, frozenset[str]] | None = None) -> dict[str, Any]:
    per_source: dict[str, dict[str, float]] = {}
    latencies: list[float] = []
    readme = None
    for unit in units:
        started = time.perf_counter()
        scope = (scopes or {}).get(unit.ontology or "")
        result = retriever.seeds(unit.text, scope)
        latencies.append(time.perf_counter() - started)
        ranked = [s.iri for s in result.seeds]
        found, top10 = set(ranked), set(ranked[:10])
        stats = per_source.setdefault(unit.source, {"gold": 0, "hit": 0, "hit10": 0,
                                                    "seeds": 0, "units": 0, "empty": 0})
        for group in unit.gold_groups():
            stats["gold"] += 1
            stats["hit"] += bool(group & found)
            stats["hit10"] += bool(group & top10)
        stats["seeds"] += len(ranked)
        stats["units"] += 1
        stats["empty"] += not ranked
    readme = retriever.seeds("The probe recorded a 5 mV signal for 4-15 days.")
    total = {k: sum(s[k] for s in per_source.values()) for k in ("gold", "hit", "hit10",
                                                                  "seeds", "units", "empty")}
    def row(s: dict[str, float]) -> dict[str, float]:
        return {"seed_recall": round(s["hit"] / max(1, s["gold"]), 4),
                "recall_at_10": round(s["hit10"] / max(1, s["gold"]), 4),
                "seeds_per_unit": round(s["seeds"] / max(1, s["units"]), 1),
                "empty": int(s["empty"]), "gold": int(s["gold"])}
    return {"overall": row(total), **{k: row(v) for k, v in sorted(per_source.items())},
            "latency_ms_p50": round(1000 * statistics.median(latencies), 1),
            "latency_ms_p95": round(1000 * float(np.percentile(latencies, 95)), 1),
            "readme_first_seeds": [s.iri.rsplit("/", 1)[-1] for s in readme.seeds[:5]]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("units", nargs="+", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", action="append", default=None,
                        help="base, reference, or GROUP.FIELD=VALUE[,...] over the defaults "
                             "(prefix 'reference:' to start from the reference profile)")
    parser.add_argument("--memo", action="store_true", help="embed each window once")
    parser.add_argument("--out", type=Path, default=None, help="append JSON lines here")
    parser.add_argument("--scope", action="store_true",
                        help="scope each unit that names its ontology to that ontology")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as work:
        units = sample_units(read_units(args.units, Path(work)).units, args.sample, args.seed)
    base = load_settings(data_dir=args.data_dir)
    embedder: Any = make_embedder(base)
    if args.memo:
        embedder = MemoEmbedder(embedder)
    opened = SeedRetriever.open(base, embedder=embedder)
    scopes = None
    if args.scope:
        state = IndexState.load(tenant_dir(base) / "state.json")
        if state is None:
            parser.error(f"no index in {args.data_dir}")
        scopes = {name: state.named([name]) for name in {u.ontology for u in units if u.ontology}}
    for spec in args.variant or ["base"]:
        settings = variant_settings(spec, args.data_dir)
        retriever = SeedRetriever(settings, opened.index, embedder,
                                  mentions=lambda: opened.dictionary)
        started = time.perf_counter()
        found = {"variant": spec, "units": len(units), "scoped": args.scope,
                 **measure(retriever, units, scopes),
                 "seconds": round(time.perf_counter() - started, 1)}
        print(json.dumps(found), flush=True)
        if args.out:
            with args.out.open("a") as handle:
                handle.write(json.dumps(found) + "\n")
    opened.close()


if __name__ == "__main__":
    main()
