"""Merged neighbour lists shared by every view over the same versions of a node.

A ``WorkingGraph`` is made per retrieval, over the versions that retrieval
chose, and nearly every retrieval chooses a different set (300 CRAFT
paragraphs: 298 sets, of 2 to 27 versions), so a view's own memo is thrown
away with it. A node's merged list, though, depends only on the versions that
hold the node, never on the rest of the view: its pairs come from those
versions alone, and their order from ``term_order``, whose blank-node shapes
say the same in every version that shares the node. Keyed by those holders'
names (content hashes, so a name never stands for other triples), one merge
serves every later view that holds the node in the same versions.

Bounded by the pairs it holds (least recently used first out), since a
server's memo otherwise grows with every hub it ever merged.

>>> memo = MergedLookups(max_pairs=3)
>>> memo.get("in", "n", ("a", "b"), lambda: [1, 2])
[1, 2]
>>> memo.get("in", "n", ("a", "b"), lambda: [9])  # remembered, not computed again
[1, 2]
>>> memo.get("in", "m", ("a", "b"), lambda: [3, 4])  # 4 pairs: the oldest goes
[3, 4]
>>> len(memo), memo.pairs
(1, 2)
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

__all__ = ["MergedLookups"]

T = TypeVar("T", bound=list[Any])

DEFAULT_MAX_PAIRS = 1_000_000
"""About 64 MB of pairs (a tuple and its list slot each): several thousand hub merges."""


class MergedLookups:
    """A bounded memo of merged lists by (kind, node, holder names).

    Safe beside threads under the GIL: a miss in two threads merges twice and
    keeps one (the lists are equal); the bound is kept by whichever stores last.
    """

    def __init__(self, max_pairs: int = DEFAULT_MAX_PAIRS) -> None:
        self.max_pairs = max_pairs
        self.pairs = 0
        self._lists: OrderedDict[tuple[str, Hashable, tuple[str, ...]], list[Any]] = (
            OrderedDict())

    def __len__(self) -> int:
        return len(self._lists)

    def get(self, kind: str, node: Hashable, holders: tuple[str, ...],
            merge: Callable[[], T]) -> T:
        """The list remembered for ``node`` held by ``holders``, else ``merge()`` kept."""
        key = (kind, node, holders)
        found = self._lists.get(key)
        if found is not None:
            # Another thread may have dropped it meanwhile: still a right answer.
            with contextlib.suppress(KeyError):
                self._lists.move_to_end(key)
            return found  # type: ignore[return-value]
        merged = merge()
        self._lists[key] = merged
        self.pairs += len(merged)
        while self.pairs > self.max_pairs and self._lists:
            _, dropped = self._lists.popitem(last=False)
            self.pairs -= len(dropped)
        return merged
