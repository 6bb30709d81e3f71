"""Benchmark: the dense encoder's speed at several ``embed.batch_tokens``, same vectors.

Two workloads, each embedded whole at every batch budget, the budgets taken in
turn and in reverse on alternate rounds (this VM drifts by 20 % over minutes,
so only budgets measured side by side compare):

- documents: a fixed-seed sample of the dense texts (core and neighbourhood)
  the index build embeds for the given ontology files, with the encoder on
  every core, as a build runs it (wall seconds);
- queries: the query windows of a fixed-seed sample of units, as one
  ``annotate`` batch embeds them, with one worker's share of the cores
  (``workers.worker_settings``; CPU seconds).

Every budget's vectors must equal the first's bit for bit (the run stops
otherwise): the budget changes speed and memory, never a result.

    python benchmarks/encoder_batches.py --ontology ../shared/bench/catalog/obo/craft-CL.ttl \\
        --ontology ../shared/bench/catalog/obo/craft-SO.ttl \\
        --units ../shared/bench/units/craft.jsonl [--budgets 256,512,1024,2048] \\
        [--documents 3000] [--queries 300] [--rounds 2] [--seed 13] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ontoretrieve.bench.perf import dense_texts, file_atoms
from ontoretrieve.engine.workers import worker_settings
from ontoretrieve.index.build import make_embedder
from ontoretrieve.index.embed import Embedder
from ontoretrieve.query.windows import make_windows_with_metrics
from ontoretrieve.settings import Settings, load_settings


def document_texts(paths: Sequence[Path], settings: Settings, count: int,
                   seed: int) -> list[str]:
    """A sample of the dense texts an index build embeds for ``paths``."""
    pool = [t for path in paths for t in dense_texts(file_atoms(path, settings))]
    return random.Random(seed).sample(pool, min(count, len(pool)))


def query_texts(units: Path, settings: Settings, embedder: Embedder, count: int,
                seed: int) -> list[str]:
    """The distinct query windows of a sample of units, in the units' order."""
    texts = [json.loads(line)["text"] for line in units.read_text(encoding="utf-8").splitlines()
             if line.strip()]
    chosen = random.Random(seed).sample(texts, min(count, len(texts)))
    windows = [w.text for text in chosen for w in make_windows_with_metrics(
        text, settings.windows, embedder.count_tokens, embedder.sequence_limit)[0]]
    return list(dict.fromkeys(windows))


def _clock(kind: str) -> Callable[[], float]:
    return time.perf_counter if kind == "wall" else time.process_time


def measure(settings: Settings, budgets: Sequence[int], embed: Callable[[Embedder], Any],
            clock: str, rounds: int) -> dict[int, list[float]]:
    """Seconds per round at each budget; stops if any budget's vectors differ."""
    embedders = {b: make_embedder(settings.model_copy(update={
        "embed": settings.embed.model_copy(update={"batch_tokens": b})})) for b in budgets}
    now = _clock(clock)
    seconds: dict[int, list[float]] = {b: [] for b in budgets}
    first: Any = None
    for turn in range(rounds):
        for budget in (budgets if turn % 2 == 0 else list(reversed(budgets))):
            started = now()
            vectors = embed(embedders[budget])
            seconds[budget].append(now() - started)
            if first is None:
                first = vectors
            elif not np.array_equal(vectors, first):
                sys.exit(f"vectors at batch_tokens={budget} differ from the first budget's")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ontology", type=Path, action="append", required=True)
    parser.add_argument("--units", type=Path, required=True)
    parser.add_argument("--budgets", default="256,512,1024,2048")
    parser.add_argument("--documents", type=int, default=3000)
    parser.add_argument("--queries", type=int, default=300, help="units whose windows to embed")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    with tempfile.TemporaryDirectory() as scratch:
        settings = load_settings(data_dir=Path(scratch))
        docs = document_texts(args.ontology, settings, args.documents, args.seed)
        worker = worker_settings(settings, 2)
        queries = query_texts(args.units, worker, make_embedder(worker), args.queries,
                              args.seed)
        results = {
            "documents": {"texts": len(docs), "clock": "wall", "threads": "every core",
                          "seconds": measure(settings, budgets,
                                             lambda e: e.embed_documents(docs), "wall",
                                             args.rounds)},
            "queries": {"texts": len(queries), "units": args.queries, "clock": "cpu",
                        "threads": "one worker's share",
                        "seconds": measure(worker, budgets,
                                           lambda e: e.embed_queries(queries), "cpu",
                                           args.rounds)}}
    for name, found in results.items():
        print(f"{name}: {found['texts']} texts ({found['clock']} seconds, {found['threads']})")
        for budget, runs in found["seconds"].items():
            best = min(runs)
            print(f"  batch_tokens {budget:>5}: {', '.join(f'{r:.2f}' for r in runs)} s; "
                  f"median {statistics.median(runs):.2f} s; {found['texts'] / best:.0f} texts/s")
    if args.out:
        args.out.write_text(json.dumps({
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "machine": f"{platform.machine()}, {platform.python_version()}",
            "seed": args.seed, "rounds": args.rounds, **results}, indent=1) + "\n",
            encoding="utf-8")


if __name__ == "__main__":
    main()
