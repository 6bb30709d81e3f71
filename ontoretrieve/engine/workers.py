"""Worker processes, each with an engine of its own: the cores of one machine for one corpus.

One engine uses a little more than one core on a corpus: the encoder spreads over
the cores, the rest of a retrieval (lane fusion, seed rules, the subgraph, the
token budget) is Python on one. Worker processes, each a reader of the data
directory (``Engine.open(access="read")``) with its share of the cores for the
encoder (``embed.threads``) and the vector search (``vector_index.search_threads``:
Edge's own choice is a pool of several threads per process, which two workers
on two cores only make contend), keep every core busy. ``annotate --workers``
(``annotate_workers``) and ``bench recall --workers`` (``bench.runner``) use them;
the vectors do not depend on the encoder's threads (checked by the tests and the
benchmarks), so a worker's results are the calling process's.

Workers start with ``spawn`` (the engine holds native threads a fork would
copy half-way) and open their engines when the pool is made, all of them before
it returns (as a loop opens its engine before its first unit), so a run's
rate counts retrieval only. A worker that cannot open the engine (or set up what
its tasks share) fails the pool with the reason.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Self, TypeVar

from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.settings import Settings

__all__ = ["BATCHES_PER_WORKER", "WORKER_MEMORY_BYTES", "EnginePool", "auto_workers",
           "available_memory", "usable_cores", "worker_settings"]

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")

_state: Any = None
"""The worker process's state: its engine, or what the pool's ``setup`` made of it."""
_failure: str | None = None
"""Why the worker could not start (reported by its first task)."""
_started: Any = None
"""The barrier every worker's first task waits at."""


BATCHES_PER_WORKER = 4
"""Batches (chunks) of work a worker takes before another one pays for its start. Each worker
opens its own engine and fills its own caches, so its first batch is slow: on the bench
catalog (2 cores) 64 CRAFT paragraphs took 17.4 s with two workers against 13.1 s in one
process, 320 took 33.3 s against 37.5 s (benchmarks/RESULTS.md, session 48)."""

WORKER_MEMORY_BYTES = 5 << 29
"""Memory set aside for each worker (2.5 GiB): a worker on the bench catalog peaked at
1.6 GB over 640 CRAFT paragraphs, its graph caches growing with the catalog."""


def worker_settings(settings: Settings, workers: int, cores: int | None = None) -> Settings:
    """The settings of one of ``workers`` workers: the encoder's and the vector search's
    threads split among them (each unless set: ``embed.threads``,
    ``vector_index.search_threads``), the rest unchanged.

    >>> from ontoretrieve.settings import load_settings
    >>> split = worker_settings(load_settings(), 2, cores=8)
    >>> split.embed.threads, split.vector_index.search_threads
    (4, 4)
    >>> worker_settings(load_settings(), 3, cores=2).embed.threads
    1
    """
    share = max(1, (cores or usable_cores()) // workers)
    embed, vector = settings.embed, settings.vector_index
    return settings.model_copy(update={
        "embed": embed.model_copy(update={"threads": embed.threads or share}),
        "vector_index": vector.model_copy(update={
            "search_threads": vector.search_threads or share})})


def auto_workers(units: int, batch: int, cores: int, memory: int | None) -> int:
    """How many workers ``--workers auto`` starts (``annotate``, ``bench recall``) for
    ``units`` left to do in chunks of ``batch``: one per core, but no more than one per
    ``BATCHES_PER_WORKER`` chunks nor than ``memory`` (bytes available, None: unknown)
    affords at ``WORKER_MEMORY_BYTES`` each; 1 works in the calling process.

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


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says).

    >>> usable_cores() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on every system (macOS, Windows)
        return os.cpu_count() or 1


def available_memory() -> int | None:
    """Bytes of memory available to new processes without swapping (Linux's
    ``MemAvailable``; else the free pages the system reports), None when unknown.

    >>> available_memory() is None or available_memory() > 0
    True
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


class EnginePool:
    """``workers`` processes, each with a read-only engine, running tasks; a context manager.

    ``setup(engine, payload)``, when given, runs in each worker once its engine is open,
    and what it returns is what the tasks get (else the engine). Both are module-level
    functions (they are sent to the workers by name). ``name`` says whose workers these
    are in errors ("an annotate worker"); ``if_died`` is added to the error a dead
    worker raises (what the caller keeps, how to go on).

    Raises:
        OntoRetrieveError: a worker cannot start (when the pool is made), or died (from
            ``map_in_order``).
    """

    def __init__(self, settings: Settings, workers: int, *, name: str = "a worker",
                 setup: Callable[[Any, Any], Any] | None = None, payload: Any = None,
                 if_died: str = "") -> None:
        if workers < 1:
            raise OntoRetrieveError(f"the number of workers must be at least 1, not {workers}")
        self.workers = workers
        self.name = name
        self.if_died = if_died
        context = multiprocessing.get_context("spawn")
        # Every worker takes one task that waits for all: so each has started and
        # opened its engine (or said why not) when the pool is returned.
        started = context.Barrier(workers)
        self._executor = ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_start_worker,
            initargs=(worker_settings(settings, workers), started, name, setup, payload))
        try:
            for ready in [self._executor.submit(_ready) for _ in range(workers)]:
                self._result(ready)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def map_in_order(self, task: Callable[[Any, _Item], _Result], items: Iterable[_Item]
                     ) -> Iterator[_Result]:
        """``task(state, item)`` of each item in a worker, in the order of the items; at
        most two items per worker are in flight, so the items are never read ahead whole."""
        pending: deque[Future[_Result]] = deque()
        for item in items:
            pending.append(self._executor.submit(_run, task, item))
            if len(pending) >= 2 * self.workers:
                yield self._result(pending.popleft())
        while pending:
            yield self._result(pending.popleft())

    def _result(self, future: Future[_Result]) -> _Result:
        try:
            return future.result()
        except BrokenProcessPool as exc:
            raise OntoRetrieveError(f"{self.name} died ({exc}){self.if_died}") from None


def _start_worker(settings: Settings, started: Any, name: str,
                  setup: Callable[[Any, Any], Any] | None, payload: Any) -> None:
    """In the worker, when it starts: open its engine and set up (a failure is kept, not
    raised, since an initializer that raises breaks the pool without saying why)."""
    global _state, _failure, _started
    from ontoretrieve.engine import Engine

    _started = started
    try:
        engine = Engine.open(settings, access="read")
    except Exception as exc:
        _failure = f"{name} cannot open the engine: {exc}"
        return
    atexit.register(engine.close)
    try:
        _state = engine if setup is None else setup(engine, payload)
    except Exception as exc:
        _failure = f"{name} cannot start: {exc}"


def _ready() -> None:
    """In the worker: wait for every worker to have started, then say how it went."""
    _started.wait(timeout=600)
    if _failure is not None:
        raise OntoRetrieveError(_failure)


def _run(task: Callable[[Any, _Item], _Result], item: _Item) -> _Result:
    """In the worker: one task on the worker's state."""
    return task(_state, item)
