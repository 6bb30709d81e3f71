"""``bench recall --workers``: the rows of chunks of units made in worker processes.

Each worker (``engine.workers.EnginePool``) opens a read-only engine and a
retriever per variant over it, as the ``bench recall`` process does, and makes
a chunk's rows with the same ``bench_row``; the rows come back in unit order
and are written as they come. A chunk is the ``--batch`` when one is given
(so a batch is prepared exactly as in one process), else ``WORKER_CHUNK``
units. With the warm-up on, a worker runs its chunk's warm-up pass right before
the chunk's rows, so each unit meets the graph cache its own retrieval filled,
as in one process.

Each row's latency is measured in its worker, with the other workers busy
beside it: on 2 cores two workers slow each other by about a fifth
(benchmarks/RESULTS.md, session 47), so compare latencies between runs with the
same number of workers.
"""

from __future__ import annotations

import atexit
import json
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ontoretrieve.bench.rows import RowInputs, bench_row, prepare_batch, warm_up_pass
from ontoretrieve.bench.units import BenchUnit
from ontoretrieve.context.retriever import Retriever
from ontoretrieve.engine.workers import EnginePool, worker_settings
from ontoretrieve.query.batch import NOTHING_PREPARED
from ontoretrieve.settings import Settings
from ontoretrieve.settings.tenants import DEFAULT_TENANT

__all__ = ["WORKER_CHUNK", "rows_in_workers"]

WORKER_CHUNK = 16
"""Units per task without ``--batch``: small enough to keep every worker busy to the
end of a run of a few hundred units, large enough that sending a task and its rows back
is little beside its sixteen retrievals (each at six budgets)."""

Rows = list[dict[str, Any]]


def rows_in_workers(variants: Sequence[tuple[str, Settings]], units: Sequence[BenchUnit],
                    inputs: RowInputs, out_dir: Path, *, workers: int, warm_up: bool,
                    batch: int, report: Callable[[str, int, int], None]
                    ) -> tuple[dict[str, Rows], float]:
    """Every variant's rows (``variants``: name and settings, the base first), written to
    ``out_dir/<name>.jsonl`` in unit order as the chunks come back, and the warm-up
    seconds the workers spent in all.

    Raises:
        OntoRetrieveError: a worker cannot start, or died.
    """
    size = batch or WORKER_CHUNK
    chunks = [list(units[i:i + size]) for i in range(0, len(units), size)]
    names = [name for name, _ in variants]
    # Each worker's share of the cores, for every variant's retriever as for its engine.
    shared = ([(name, worker_settings(s, workers)) for name, s in variants], inputs)
    rows: dict[str, Rows] = {name: [] for name in names}
    warm_seconds = 0.0
    with ExitStack() as stack:
        report(f"starting {workers} workers", 0, workers)
        pool = stack.enter_context(EnginePool(
            variants[0][1], workers, name="a bench worker", setup=_start_worker,
            payload=shared))
        report(f"starting {workers} workers", workers, workers)
        # Opened once the workers run: a pool that cannot start leaves earlier rows alone.
        sinks = {name: stack.enter_context((out_dir / f"{name}.jsonl").open(
            "w", encoding="utf-8")) for name in names}
        done = 0
        made = pool.map_in_order(_chunk_rows, ((chunk, warm_up, bool(batch)) for chunk in chunks))
        for chunk, (warm, chunk_rows) in zip(chunks, made, strict=True):
            done += len(chunk)
            warm_seconds += warm
            if warm_up:
                report("warm-up", done, len(units))
            for name in names:
                sinks[name].writelines(json.dumps(row) + "\n" for row in chunk_rows[name])
                rows[name].extend(chunk_rows[name])
                report(name, done, len(units))
    return rows, warm_seconds


@dataclass(frozen=True, slots=True)
class _Worker:
    """A worker's retrievers: the base one (which reads the catalog for the rows) and one
    per variant, over the same index, model and graph cache."""

    base: Retriever
    variants: dict[str, Retriever]
    inputs: RowInputs


def _start_worker(engine: Any, shared: tuple[list[tuple[str, Settings]], RowInputs]
                  ) -> _Worker:
    """In the worker, once its engine is open: the retrievers its chunks use."""
    variants, inputs = shared
    # A reader's retriever, as a read-only engine opens it: the bench process holds the
    # index's shard open for writing.
    base = Retriever.open(variants[0][1], engine.store, DEFAULT_TENANT, engine.embedder(),
                          reader=True)
    atexit.register(base.close)
    return _Worker(base, {name: base.variant(s) for name, s in variants}, inputs)


def _chunk_rows(worker: _Worker, work: tuple[list[BenchUnit], bool, bool]
                ) -> tuple[float, dict[str, Rows]]:
    """In the worker: the chunk's warm-up seconds and its rows per variant."""
    units, warm_up, batched = work
    scopes = worker.inputs.scopes
    warm = warm_up_pass(worker.base, units, scopes) if warm_up else 0.0
    made = {}
    for name, retriever in worker.variants.items():
        prepared = prepare_batch(retriever, units, scopes) if batched else {}
        made[name] = [bench_row(worker.base, retriever, unit, worker.inputs,
                                prepared.get(scopes[unit.id], NOTHING_PREPARED))
                      for unit in units]
    return warm, made
