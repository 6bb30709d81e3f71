"""Whole-word keys found in a padded word stream: the mention dictionary's matcher.

The mention lane's keys and query streams are words joined by single spaces
and padded with one space on each side (`` embryon stem cell ``), so a key
can only occur where a word starts and end where a word ends. That makes a
character automaton unnecessary: a hash table of the keys and one of their
proper word prefixes answer the same question. From each word of the stream
the scan extends word by word while the text read so far is some key's
prefix, and reports every key it passes.

Against the Aho-Corasick automaton (pyahocorasick) it replaced, on the bench
catalog's 272k keys (benchmarks/RESULTS.md, session 12): a process holds the
dictionary in 117 MB less (182 against 299 MB; an automaton keeps a node per
character), the kept file is a quarter of the size, a build takes half the
time, a load about as long, and a text's whole ``find`` the same within the
noise. The matches are the same, in the same order: by the index of a key's
last character, the longer key first at one end.

>>> table = KeyTable[str]()
>>> for key in (" stem cell ", " cell ", " embryon stem cell "):
...     table.add(key, key.strip())
>>> table.find(" the embryon stem cell ")
[(22, 'embryon stem cell'), (22, 'stem cell'), (22, 'cell')]
>>> table.get(" stem cell "), table.get(" stem "), len(table)
('stem cell', None, 3)
"""

from __future__ import annotations

from typing import Generic, TypeVar, overload

__all__ = ["KeyTable"]

V = TypeVar("V")
D = TypeVar("D")

_ABSENT = object()


class KeyTable(Generic[V]):
    """Keys of whole words (`` w1 w2 ``) with their values, found in word streams."""

    __slots__ = ("_prefixes", "_values")

    def __init__(self) -> None:
        self._values: dict[str, V] = {}
        self._prefixes: set[str] = set()
        """Every proper word prefix of a key, padded as keys are (`` embryon stem ``)."""

    def add(self, key: str, value: V) -> None:
        """Add ``key`` (or give it a new value).

        >>> KeyTable[int]().add("cell", 1)
        Traceback (most recent call last):
        ...
        ValueError: a key is words between single spaces, padded with one on each side: 'cell'
        """
        if len(key) < 3 or key[0] != " " or key[-1] != " " or "  " in key:
            raise ValueError("a key is words between single spaces, padded with one on each "
                             f"side: {key!r}")
        self._values[key] = value
        end = key.find(" ", 1)
        while end < len(key) - 1:
            self._prefixes.add(key[:end + 1])
            end = key.find(" ", end + 1)

    @overload
    def get(self, key: str) -> V | None: ...

    @overload
    def get(self, key: str, default: D) -> V | D: ...

    def get(self, key: str, default: D | None = None) -> V | D | None:
        """The key's value, else ``default``."""
        return self._values.get(key, default)

    def __len__(self) -> int:
        return len(self._values)

    def find(self, stream: str) -> list[tuple[int, V]]:
        """Every key in the padded word ``stream``, nested and overlapping ones included,
        as (index of its last character, value): by that index, the longer key first.

        >>> table = KeyTable[str]()
        >>> table.add(" a b ", "ab"); table.add(" b c ", "bc"); table.add(" b ", "b")
        >>> table.find(" a b c ")
        [(4, 'ab'), (4, 'b'), (6, 'bc')]
        """
        values, prefixes = self._values, self._prefixes
        spaces = [i for i, c in enumerate(stream) if c == " "]
        found: list[tuple[int, int, V]] = []
        for first in range(len(spaces) - 1):
            start = spaces[first]
            for last in range(first + 1, len(spaces)):  # by index: a slice would copy
                end = spaces[last]
                piece = stream[start:end + 1]
                value = values.get(piece, _ABSENT)
                if value is not _ABSENT:
                    found.append((end, start, value))  # type: ignore[arg-type]
                if piece not in prefixes:
                    break
        found.sort(key=lambda f: (f[0], f[1]))
        return [(end, value) for end, _, value in found]
