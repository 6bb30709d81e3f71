"""Benchmark: index a whole catalog, compare with raw fastembed, reopen unchanged.

In one run, on one machine state:

1. ``ontoretrieve index --catalog CATALOG --rebuild`` in a child process
   (fresh index in DATA_DIR; the catalog store is reused if already loaded):
   wall time, embedding share, atoms, peak RSS of the child;
2. raw fastembed throughput on a fixed-seed sample of the same texts (the
   dense core and neighborhood texts the index embedded), in the order given
   and sorted by length;
3. the ratio: index dense texts per second over raw dense texts per second;
4. a no-op sync (``ontoretrieve index`` again, nothing changed): wall time.

    python benchmarks/index_build.py ../shared/bench/catalog --data-dir /work/data/bench
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from datetime import UTC, datetime
from pathlib import Path

from ontoretrieve.bench.perf import run_cli_json as run_cli


def dense_texts(data_dir: Path) -> list[str]:
    """The dense texts the index holds, read back from its payloads."""
    from ontoretrieve.index.build import open_query_index
    from ontoretrieve.settings import load_settings

    index, _ = open_query_index(load_settings(data_dir=data_dir))
    shard = index._shard  # type: ignore[attr-defined]
    import qdrant_edge as qe

    texts: list[str] = []
    offset = None
    while True:
        records, offset = shard.scroll(qe.ScrollRequest(
            offset=offset, limit=2048, with_payload=["core_text", "neighborhood_text"],
            with_vector=False))
        for record in records:
            texts.append(record.payload["core_text"])
            if record.payload.get("neighborhood_text"):
                texts.append(record.payload["neighborhood_text"])
        if offset is None:
            break
    index.close()
    return texts


def raw_throughput(texts: list[str], data_dir: Path) -> dict[str, float]:
    from ontoretrieve.index.build import make_embedder
    from ontoretrieve.settings import load_settings

    embedder = make_embedder(load_settings(data_dir=data_dir))
    found = {}
    for label, batch in [("given_order", texts), ("sorted_by_length", sorted(texts, key=len))]:
        started = time.perf_counter()
        embedder.embed_documents(batch)
        found[label] = len(batch) / (time.perf_counter() - started)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("catalog", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=6000, help="texts for raw throughput")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()

    report, wall, rss = run_cli(["index", "--catalog", str(args.catalog), "--rebuild",
                                 "--data-dir", str(args.data_dir)])
    texts = dense_texts(args.data_dir)
    sample = random.Random(args.seed).sample(texts, min(args.sample, len(texts)))
    raw = raw_throughput(sample, args.data_dir)
    noop, noop_wall, noop_rss = run_cli(["index", "--catalog", str(args.catalog),
                                         "--data-dir", str(args.data_dir)])
    embedded_texts = len(texts) * report["atoms_embedded"] / max(report["atoms_total"], 1)
    index_rate = embedded_texts / wall
    best_raw = max(raw.values())
    print(json.dumps({
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                   f"{platform.python_version()}",
        "catalog": str(args.catalog),
        "index": {
            "atoms_total": report["atoms_total"],
            "atoms_embedded": report["atoms_embedded"],
            "dense_texts": len(texts),
            "wall_seconds": round(wall, 1),
            "sync_seconds": report["seconds"],
            "embed_seconds": report["embed_seconds"],
            "embedding_share_of_wall": round(report["embed_seconds"] / wall, 3),
            "peak_rss_mib": round(rss, 1),
            "dense_texts_per_second": round(index_rate, 1),
        },
        "raw_fastembed_dense_texts_per_second": {k: round(v, 1) for k, v in raw.items()},
        "raw_sample_texts": len(sample),
        "index_over_best_raw": round(index_rate / best_raw, 3),
        "noop_sync": {"wall_seconds": round(noop_wall, 2), "peak_rss_mib": round(noop_rss, 1),
                      "atoms_embedded": noop["atoms_embedded"]},
    }, indent=2))


if __name__ == "__main__":
    main()
