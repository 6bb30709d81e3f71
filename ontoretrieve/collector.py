"""The cyclic garbage collector paused around bulk builds of acyclic data.

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
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]

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
