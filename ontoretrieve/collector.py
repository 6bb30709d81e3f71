"""The cyclic garbage collector: paused around bulk builds of acyclic data, and
collecting young objects less often in a process that holds a catalog.

Reading a catalog version makes millions of tuples and lists in one burst
(GO, 389k triples: its graph index). Each burst sets off collections that
walk every object alive, the ones just made included, so the collector took
most of the build: 2.0-5.6 s with it against 0.6 s paused (GO's index,
benchmarks/RESULTS.md, session 11). What such a build makes holds no
reference cycle, so collecting after it loses nothing. Reference counting
frees everything else as usual meanwhile.

The pause is shared: overlapping pauses (a server's threads) keep the
collector off until the last one ends, and a collector that was off before
the first stays off. Never pause around work that runs user code or lasts
long: garbage with cycles waits for the collector.

>>> import gc
>>> with collector_paused():
...     gc.isenabled()
False
>>> gc.isenabled()
True

Python starts a young collection every 700 new container objects (net of those
freed). A retrieval keeps thousands alive at once, so the collector ran about
eleven times a unit, each time walking the retrieval's working lists
(references into a catalog of a million terms), and moved whatever was alive
at that moment to the oldest generation, whose growth then set off full
collections of the whole catalog. At 700 a warm engine's loop spent 9-12 % of
its time collecting; at 50,000 (``server.young_collection_threshold``, applied
when an engine opens) 2 %: young collections are rare, most working lists have
died by then, and full collections almost stop (benchmarks/RESULTS.md,
session 13).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused", "raise_young_threshold"]

_lock = threading.Lock()
_pauses = 0
_enable_after = False
"""Whether the collector was on when the first of the current pauses began."""


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off for the block (and on again after the last overlapping pause,
    if it was on before the first), however the block ends.

    >>> import gc
    >>> with collector_paused():
    ...     with collector_paused():
    ...         pass
    ...     gc.isenabled()
    False
    """
    global _pauses, _enable_after
    with _lock:
        if _pauses == 0:
            _enable_after = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _enable_after:
                gc.enable()


def raise_young_threshold(objects: int) -> None:
    """Start young collections only every ``objects`` new container objects, if the
    process's threshold is lower (never lowered; 0 leaves it; a collector whose
    automatic collections the host turned off with a threshold of 0 stays off).

    >>> import gc
    >>> before = gc.get_threshold()
    >>> gc.set_threshold(700, *before[1:])
    >>> raise_young_threshold(50_000)
    >>> gc.get_threshold()[0]
    50000
    >>> raise_young_threshold(10_000)  # never lowered
    >>> gc.get_threshold()[0]
    50000
    >>> gc.set_threshold(*before)
    """
    first, second, third = gc.get_threshold()
    if objects > first > 0:
        gc.set_threshold(objects, second, third)
