"""Annotate with worker processes: each retrieves whole chunks with an engine of its own.

A chunk's rows are made in the worker (``workers.EnginePool``) exactly as
``annotate_file`` makes them in one process, and come back in input order, so
the output file is the same line for line. How many: ``annotate --workers auto``
(the default) asks ``workers.auto_workers``, one per usable core where the units
left give each several batches and memory affords it. A worker that cannot open the
engine fails the pool with the reason; the lines already written stay and a
later run resumes after them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ontoretrieve.engine.annotate import RowLine, UnitLine, annotate_chunk, row_lines
from ontoretrieve.engine.workers import EnginePool
from ontoretrieve.settings import Settings

__all__ = ["WorkerPool"]


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
