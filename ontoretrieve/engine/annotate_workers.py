"""Annotate with worker processes: each retrieves whole chunks with an engine of its own.

A chunk's rows are made in the worker (``workers.EnginePool``) exactly as
``annotate_file`` makes them in one process, and come back in input order, so
the output file is the same line for line. How many: ``annotate --workers auto``
(the default) asks ``auto_workers``, one per usable core where the units left
give each several batches and memory affords it. A worker that cannot open the
engine fails the pool with the reason; the lines already written stay and a
later run resumes after them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ontoretrieve.engine.annotate import RowLine, UnitLine, annotate_chunk, row_lines
from ontoretrieve.engine.workers import EnginePool
from ontoretrieve.settings import Settings

__all__ = ["BATCHES_PER_WORKER", "WORKER_MEMORY_BYTES", "WorkerPool", "auto_workers"]

BATCHES_PER_WORKER = 4
"""Batches of work a worker takes before another one pays for its start. Each worker
opens its own engine and fills its own caches, so its first batch is slow: on the bench
catalog (2 cores) 64 CRAFT paragraphs took 17.4 s with two workers against 13.1 s in one
process, 320 took 33.3 s against 37.5 s (benchmarks/RESULTS.md, session 48)."""

WORKER_MEMORY_BYTES = 5 << 29
"""Memory set aside for each worker (2.5 GiB): a worker on the bench catalog peaked at
1.6 GB over 640 CRAFT paragraphs, its graph caches growing with the catalog."""


def auto_workers(units: int, batch: int, cores: int, memory: int | None) -> int:
    """How many workers ``annotate --workers auto`` starts for ``units`` left to do in
    batches of ``batch``: one per core, but no more than one per ``BATCHES_PER_WORKER``
    batches nor than ``memory`` (bytes available, None: unknown) affords at
    ``WORKER_MEMORY_BYTES`` each; 1 retrieves in the calling process.

    >>> auto_workers(3658, 64, cores=2, memory=20 << 30)
    2
    >>> auto_workers(200, 64, cores=2, memory=20 << 30)  # 4 batches: not worth a start
    1
    >>> auto_workers(100_000, 64, cores=32, memory=16 << 30)  # 6 workers fit in 16 GiB
    6
    >>> auto_workers(100_000, 64, cores=8, memory=None)
    8
    """
    batches = -(-units // max(1, batch))
    most = [cores, batches // BATCHES_PER_WORKER]
    if memory is not None:
        most.append(memory // WORKER_MEMORY_BYTES)
    return max(1, min(most))



class WorkerPool(EnginePool):
    """``workers`` processes annotating chunks of units; a context manager.

    Raises:
        OntoRetrieveError: a worker cannot open the engine (when the pool is made), or
            died (from ``annotate``).
    """

    def __init__(self, settings: Settings, workers: int) -> None:
        super().__init__(settings, workers, name="an annotate worker",
                         if_died="; the lines written so far are kept and a new run "
                         "resumes after them")

    def __enter__(self) -> WorkerPool:
        return self

    def annotate(self, chunks: Iterable[Sequence[UnitLine]], options: dict[str, Any],
                 turtle: bool) -> Iterator[list[RowLine]]:
        """The output lines of each chunk, in the order of the chunks; at most two chunks per
        worker are in flight, so a corpus is never read ahead whole."""
        return self.map_in_order(_annotate_in_worker,
                                 ((list(chunk), options, turtle) for chunk in chunks))


def _annotate_in_worker(engine: Any, work: tuple[list[UnitLine], dict[str, Any], bool]
                        ) -> list[RowLine]:
    """In the worker: the chunk's output lines (cheaper to send back than objects)."""
    chunk, options, turtle = work
    return row_lines(annotate_chunk(engine, chunk, options, turtle))
