"""Benchmark: the store's SELECTs a retrieval asks, one by one and in a batch.

Counts and times every SELECT and CONSTRUCT the triple store answers while the
same units are retrieved twice by one engine, in turns: one by one
(``Engine.retrieve``) and in batches (``Engine.retrieve_many``), the result
cache cleared before each side. The first batch warms the engine (graphs read,
dictionary loaded) and is not counted. ``--query-url`` reads the catalog from a
SPARQL server instead of the data directory's embedded store (serve a copy of
it with ``oxigraph serve-read-only --location COPY``).

    python benchmarks/store_reads.py ../shared/bench/units/craft.jsonl \\
        --data-dir /work/data/bench [--query-url http://127.0.0.1:7879/query] \\
        [--count 192] [--batch 64] [--seed 1] [--out store_reads.json]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from common import emit, stamp

from ontoretrieve import Engine, load_settings
from ontoretrieve.bench.compare import read_jsonl

_READS = ("select", "construct")


@contextmanager
def counted(store: Any) -> Iterator[tuple[Counter[str], Counter[str]]]:
    """Calls and seconds per kind of read on ``store`` while the block runs."""
    calls: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    originals = {name: getattr(store, name) for name in _READS}

    def timed(name: str, read: Callable[[str], Any]) -> Callable[[str], Any]:
        def run(query: str) -> Any:
            started = time.perf_counter()
            try:
                return read(query)
            finally:
                calls[name] += 1
                seconds[name] += time.perf_counter() - started
        return run

    for name, read in originals.items():
        setattr(store, name, timed(name, read))
    try:
        yield calls, seconds
    finally:
        for name in originals:
            delattr(store, name)  # the instance attribute goes, the method is back


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("units", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--query-url", default=None)
    parser.add_argument("--count", type=int, default=192, help="units measured per side")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    rows = read_jsonl(args.units, "text")
    random.Random(args.seed).shuffle(rows)
    texts = [str(r["text"]) for r in rows[:args.batch + args.count]]
    store = ({"backend": "sparql", "query_url": args.query_url} if args.query_url else {})
    settings = load_settings(data_dir=args.data_dir, store=store)
    report: dict[str, Any] = {**stamp(), "units": args.count, "batch_size": args.batch,
                              "store": args.query_url or "embedded"}
    with Engine.open(settings) as engine:
        retriever = engine._retriever(engine._tenant("default"))
        engine.retrieve_many(texts[:args.batch])  # warm-up, not counted
        measured = texts[args.batch:]
        sides: dict[str, Callable[[], object]] = {
            "one_by_one": lambda: [engine.retrieve(t) for t in measured],
            "retrieve_many": lambda: [engine.retrieve_many(measured[i:i + args.batch])
                              for i in range(0, len(measured), args.batch)]}
        for name, run in sides.items():
            engine.cache.clear("default")
            with counted(retriever.reader.store) as (calls, seconds):
                started = time.perf_counter()
                run()
                wall = time.perf_counter() - started
            report[name] = {
                "queries_per_unit": round(sum(calls.values()) / len(measured), 3),
                "query_ms_per_unit": round(1000 * sum(seconds.values()) / len(measured), 2),
                "ms_per_unit": round(1000 * wall / len(measured), 1),
                "by_kind": {k: calls[k] for k in sorted(calls)}}
    emit(report, args.out)


if __name__ == "__main__":
    main()
