"""Benchmark: seed term recall and latency by stage on bench units.

Samples N units per source (fixed seed) from ../shared/bench/units, runs the
query path up to the seeds against an existing index (build it with
``ontoretrieve index --catalog ../shared/bench/catalog --data-dir DIR``), and
reports per source, micro over unit-term pairs (an any-of group counts once):

- seed term recall: gold IRIs among the final seeds; recall@10 and @50 by rank;
- derived-gold recall (Text2KGBench domain and range classes);
- seeds per unit (mean), empty units;
- latency per unit, p50 and p95, total and by stage (windows, embedding,
  search, fusion, seeds);
- gold terms never retrieved, per gold ontology namespace.

    python benchmarks/seed_recall.py ../shared/bench/units/*.jsonl --data-dir DIR \
        --sample 300 --seed 1 [--set seeds.max_atoms=64 ...] [--out FILE.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ontoretrieve.pipeline import SeedRetriever
from ontoretrieve.settings import load_settings


def parse_sets(pairs: list[str]) -> dict[str, dict[str, Any]]:
    """``group.field=value`` pairs as nested overrides (values parsed as JSON if they can be)."""
    overrides: dict[str, dict[str, Any]] = defaultdict(dict)
    for pair in pairs:
        key, _, raw = pair.partition("=")
        group, _, field = key.partition(".")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        overrides[group][field] = value
    return dict(overrides)


def gold_groups(unit: dict[str, Any]) -> list[frozenset[str]]:
    """Each gold term as a group of acceptable IRIs (an any-of list is one group)."""
    groups = [frozenset([iri]) for iri in unit.get("gold_iris", [])]
    groups += [frozenset(group) for group in unit.get("gold_any_of", []) if group]
    return groups


def namespace(iri: str) -> str:
    for separator in ("#", "_"):
        if separator in iri.rsplit("/", 1)[-1]:
            return iri.rsplit(separator, 1)[0]
    return iri.rsplit("/", 1)[0]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench_arguments(doc: str) -> argparse.Namespace:
    """The arguments every recall benchmark takes (units, data dir, sample, seed, --set, --out)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("units", type=Path, nargs="+")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=300, help="units per source")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--set", dest="sets", action="append", default=[])
    parser.add_argument("--out", type=Path, help="one JSON row per unit")
    return parser.parse_args()


def sample_units(path: Path, size: int, seed: int) -> list[dict[str, Any]]:
    """``size`` units of one file, drawn with a fixed seed (all of them when fewer)."""
    units = [json.loads(line) for line in path.read_text().splitlines() if line]
    return random.Random(seed).sample(units, min(size, len(units)))


def main() -> None:
    args = bench_arguments(__doc__)

    settings = load_settings(data_dir=args.data_dir, **parse_sets(args.sets))
    retriever = SeedRetriever.open(settings)
    retriever.seeds("warm up the model and the index")
    rows: list[dict[str, Any]] = []
    summary: dict[str, Any] = {}
    for path in args.units:
        sample = sample_units(path, args.sample, args.seed)
        hits = total = hits10 = hits50 = derived_hits = derived_total = empty = 0
        seeds_per_unit: list[int] = []
        latency: dict[str, list[float]] = defaultdict(list)
        missed: Counter[str] = Counter()
        for unit in sample:
            started = time.perf_counter()
            result = retriever.seeds(unit["text"])
            elapsed = time.perf_counter() - started
            ranked = [s.iri for s in result.seeds]
            position = {iri: i for i, iri in enumerate(ranked)}
            for group in gold_groups(unit):
                total += 1
                ranks = [position[i] for i in group if i in position]
                hits += bool(ranks)
                hits10 += bool(ranks) and min(ranks) < 10
                hits50 += bool(ranks) and min(ranks) < 50
                if not ranks:
                    missed[namespace(next(iter(sorted(group))))] += 1
            for iri in unit.get("gold_iris_derived", []):
                derived_total += 1
                derived_hits += iri in position
            empty += not ranked
            seeds_per_unit.append(len(ranked))
            latency["total"].append(elapsed)
            for stage, seconds in result.seconds.items():
                latency[stage].append(seconds)
            rows.append({"id": unit["unit_id"], "source": unit["source"],
                         "retrieved_term_iris": ranked, "seconds": round(elapsed, 4),
                         "funnel": result.funnel.model_dump()})
        summary[path.stem] = {
            "units": len(sample),
            "gold_terms": total,
            "seed_term_recall": round(hits / max(total, 1), 4),
            "recall_at_10": round(hits10 / max(total, 1), 4),
            "recall_at_50": round(hits50 / max(total, 1), 4),
            "derived_gold_recall": round(derived_hits / derived_total, 4) if derived_total
            else None,
            "seeds_per_unit_mean": round(statistics.mean(seeds_per_unit), 1),
            "empty_units": empty,
            "latency_ms": {stage: {"p50": round(1000 * percentile(v, 0.5), 1),
                                   "p95": round(1000 * percentile(v, 0.95), 1)}
                           for stage, v in latency.items()},
            "missed_by_namespace": dict(missed.most_common(8)),
        }
    retriever.close()
    report(args, rows, summary)


def report(args: argparse.Namespace, rows: list[dict[str, Any]], summary: dict[str, Any],
           **extra: Any) -> None:
    """Write the per-unit rows to ``--out`` and print the run's JSON summary."""
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(json.dumps({
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "data_dir": str(args.data_dir), "sample_per_source": args.sample, "seed": args.seed,
        "overrides": args.sets, **extra, "sources": summary,
    }, indent=2))


if __name__ == "__main__":
    main()
