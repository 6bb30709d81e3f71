"""The result cache: one LRU partition per tenant, thread-safe.

Keys carry the catalog version, the settings fingerprint and the request, so
a catalog change misses by construction; ``clear(tenant)`` also drops a
tenant's entries at once after its catalog or index changed. Partitions are
separate objects, so no lookup, eviction or count of one tenant touches
another's.

>>> cache = ResultCache(2)
>>> cache.put("a", ("v1", "text"), 1)
>>> cache.get("a", ("v1", "text")), cache.get("b", ("v1", "text"))
(1, None)
>>> cache.stats("a")
{'entries': 1, 'hits': 1, 'misses': 0}
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

__all__ = ["ResultCache"]


class _Partition:
    def __init__(self) -> None:
        self.entries: OrderedDict[Hashable, Any] = OrderedDict()
        self.hits = 0
        self.misses = 0


class ResultCache:
    """LRU entries per tenant; ``size`` entries per tenant at most (0 turns caching off)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._partitions: dict[str, _Partition] = {}
        self._lock = threading.Lock()

    def _partition(self, tenant: str) -> _Partition:
        return self._partitions.setdefault(tenant, _Partition())

    def get(self, tenant: str, key: Hashable) -> Any | None:
        with self._lock:
            part = self._partition(tenant)
            if key in part.entries:
                part.entries.move_to_end(key)
                part.hits += 1
                return part.entries[key]
            if self.size:
                part.misses += 1
            return None

    def put(self, tenant: str, key: Hashable, value: Any) -> None:
        if not self.size:
            return
        with self._lock:
            part = self._partition(tenant)
            part.entries[key] = value
            part.entries.move_to_end(key)
            while len(part.entries) > self.size:
                part.entries.popitem(last=False)

    def clear(self, tenant: str) -> None:
        with self._lock:
            self._partition(tenant).entries.clear()

    def stats(self, tenant: str) -> dict[str, int]:
        with self._lock:
            part = self._partition(tenant)
            return {"entries": len(part.entries), "hits": part.hits, "misses": part.misses}
