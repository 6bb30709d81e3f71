"""Embedded triple store: pyoxigraph ``Store``, on disk or in memory.

>>> store = OxigraphStore.in_memory()
>>> import pyoxigraph as ox
>>> t = ox.Triple(ox.NamedNode("http://x/s"), ox.NamedNode("http://x/p"), ox.Literal("o"))
>>> store.replace_graph("urn:g", [t])
>>> store.select("SELECT ?o WHERE { GRAPH <urn:g> { ?s ?p ?o } }")[0]["o"].value
'o'
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TypeVar, cast

import pyoxigraph as ox

from ontoretrieve.backends.access import file_stamp
from ontoretrieve.backends.statement_cache import StatementCache
from ontoretrieve.backends.triple_store import Solution, Statement, interned
from ontoretrieve.collector import collector_paused
from ontoretrieve.errors import StoreQueryError, StoreUnavailableError, map_errors
from ontoretrieve.rdf import sparql

__all__ = ["OxigraphStore"]

_T = TypeVar("_T")


class OxigraphStore:
    """The default ``TripleStore``: nothing to start, data under the data directory."""

    def __init__(self, store: ox.Store, description: str,
                 reopen: Path | None = None) -> None:
        self._store = store
        self._description = description
        self._path = reopen
        """A writer's store path (its writes are announced) or a reader's (it follows them)."""
        self._writable = not description.endswith("(read-only)")
        self._seen = _writes_stamp(reopen) if reopen is not None else None
        self._kept = (StatementCache(reopen.with_name(f"{reopen.name}.statements"))
                      if reopen is not None else None)
        """Graphs' statements kept beside a store on disk (``statement_cache``)."""

    @classmethod
    def open(cls, path: Path) -> OxigraphStore:
        """Open (creating if needed) the store in ``path`` to write; one process at a time.

        On a read-only file system the store opens read-only, so a catalog on
        read-only media still serves; any write then fails with a clear error.
        """
        _refuse_damaged(path)
        try:
            path.mkdir(parents=True, exist_ok=True)
            return cls(ox.Store(str(path)), str(path), reopen=path)
        except RuntimeError as exc:  # RocksDB's "Corruption: ..." (a truncated file)
            raise StoreUnavailableError(_damaged(path, _first_sentence(exc))) from None
        except OSError as exc:
            if exc.errno in (errno.EROFS, errno.EACCES) or "Read-only file system" in str(exc):
                try:
                    return cls(ox.Store.read_only(str(path)), f"{path} (read-only)")
                except OSError:
                    pass
            raise StoreUnavailableError(
                f"cannot open the triple store at {path}: {exc} "
                "(is another ontoretrieve process using this data directory?)"
            ) from exc

    @classmethod
    def open_reader(cls, path: Path, writer: str = "another process") -> OxigraphStore:
        """Open the store in ``path`` read-only beside the process that writes it.

        RocksDB's read-only mode takes no lock and reads the store as it was when
        opened; the writer announces each write (``oxigraph.writes`` beside the
        store), and the next query here opens the store again, so a reader never
        answers from a catalog older than the writer's last finished write.
        """
        _refuse_damaged(path)
        if not (path / "CURRENT").exists():
            raise StoreUnavailableError(
                f"no triple store at {path} yet: {writer} writes this data directory "
                "and has not created it; try again when it has loaded a catalog")
        return cls(_open_read_only(path), f"{path} (read-only)", reopen=path)

    @classmethod
    def in_memory(cls) -> OxigraphStore:
        """A store that lives as long as the object; for tests and one-shot runs."""
        return cls(ox.Store(), "memory")

    @property
    def description(self) -> str:
        return self._description

    @property
    def writable(self) -> bool:
        """False for a store opened read-only (beside a writer, or on read-only media)."""
        return self._writable

    def replace_graph(self, graph: str,
                      triples: Sequence[ox.Triple] | Sequence[Statement]) -> None:
        quads = _quads(triples, ox.NamedNode(graph))
        self._forget(graph)
        with self._errors("update rejected", OSError, RuntimeError):
            self._store.update(sparql.drop_graph(graph))
            # bulk_extend is 3x faster than the transactional extend on large
            # graphs; the catalog writes fresh graph names and records them
            # only after this returns, so a crash leaves no referenced half-graph.
            self._store.bulk_extend(quads)
        self._announce()

    def drop_graph(self, graph: str) -> None:
        self._forget(graph)
        self.update(sparql.drop_graph(graph))

    def graph_triples(self, graph: str) -> list[ox.Triple]:
        name = ox.NamedNode(graph)
        return self._reading(lambda store: [
            q.triple for q in store.quads_for_pattern(None, None, None, name)])

    def graph_statements(self, graph: str) -> list[Statement]:
        """The graph's statements: from the file kept beside the store while it matches
        the store, else decoded from the store (and kept for the next process)."""
        def read(store: ox.Store) -> list[Statement]:
            kept = self._kept.load(graph, store) if self._kept is not None else None
            if kept is not None:
                return kept
            with collector_paused():  # millions of tuples: see ontoretrieve.collector
                found = interned((s, p, o) for s, p, o, _ in store.quads_for_pattern(
                    None, None, None, ox.NamedNode(graph)))
            if self._kept is not None:
                self._kept.keep(graph, found)
            return found

        return self._reading(read)

    def _forget(self, graph: str) -> None:
        """Drop a kept copy of ``graph`` before the store's graph changes."""
        if self._kept is not None and self._writable:
            self._kept.forget(graph)

    def select(self, query: str) -> list[Solution]:
        return self._reading(lambda store: _solutions(self._query(store, query), query))

    def construct(self, query: str) -> list[ox.Triple]:
        def read(store: ox.Store) -> list[ox.Triple]:
            result = self._query(store, query)
            if not isinstance(result, ox.QueryTriples):
                raise StoreQueryError(f"not a CONSTRUCT query: {query[:80]}")
            return list(result)

        return self._reading(read)

    def update(self, update: str) -> None:
        with self._errors("update rejected", OSError, RuntimeError):
            self._store.update(update)
        self._announce()

    def close(self) -> None:
        # pyoxigraph releases the RocksDB lock when the Store is collected.
        if self._writable:
            self._store.flush()
        del self._store

    def _query(self, store: ox.Store, query: str
               ) -> ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples:
        with self._errors("query rejected", OSError):
            results = store.query(query)
        return results

    def _reading(self, read: Callable[[ox.Store], _T]) -> _T:
        """``read`` on the store, its results in hand. A reader beside a writer reads a
        snapshot whose files the writer's compactions may delete meanwhile: it then
        opens the store again and reads once more."""
        try:
            return read(self._current())
        except (OSError, RuntimeError, StoreUnavailableError):
            if self._path is None or self._writable:
                raise
            self._store = _open_read_only(self._path)
            return read(self._store)

    def _announce(self) -> None:
        """Tell readers in other processes that the store changed."""
        if self._path is not None and self._writable:
            marker = _writes_marker(self._path)
            with contextlib.suppress(OSError):  # readers then see the change later
                temporary = marker.with_name(f"{marker.name}.{os.getpid()}")
                temporary.write_text(str(time.time_ns()))
                os.replace(temporary, marker)

    def _current(self) -> ox.Store:
        """The store to query: a reader opens it again when the writer has written since."""
        if self._path is None or self._writable:
            return self._store
        stamp = _writes_stamp(self._path)
        if stamp != self._seen:
            self._store = _open_read_only(self._path)
            self._seen = stamp
        return self._store

    def _errors(self, rejected: str, *unavailable: type[BaseException]
                ) -> AbstractContextManager[None]:
        """The store's errors as ours: a syntax error is a rejected query or update; the
        given I/O errors (RuntimeError: a read-only store) make the store unavailable."""
        return map_errors({
            SyntaxError: lambda exc: StoreQueryError(f"{rejected}: {exc}"),
            unavailable: lambda exc: StoreUnavailableError(f"{self._description}: {exc}"),
        })


def _writes_marker(path: Path) -> Path:
    return path.with_name(f"{path.name}.writes")


def _writes_stamp(path: Path) -> tuple[int, int] | None:
    """What a reader compares: the marker's stamp (None: no write announced)."""
    return file_stamp(_writes_marker(path))


def _solutions(results: ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples,
               query: str) -> list[Solution]:
    if not isinstance(results, ox.QuerySolutions):
        raise StoreQueryError(f"not a SELECT query: {query[:80]}")
    names = [v.value for v in results.variables]
    rows: list[Solution] = []
    for solution in results:
        row: Solution = {}
        for name in names:
            value = solution[name]
            if value is not None:
                row[name] = value
        rows.append(row)
    return rows


_REOPEN_TRIES = 8


def _open_read_only(path: Path) -> ox.Store:
    """The store read-only, as of now. Opening races the writer's compactions (a file
    the manifest names may be gone by the time it is read): tried again shortly."""
    for attempt in range(_REOPEN_TRIES):
        try:
            return ox.Store.read_only(str(path))
        except (OSError, RuntimeError) as exc:
            if attempt == _REOPEN_TRIES - 1 and "Corruption" in str(exc):
                raise StoreUnavailableError(_damaged(path, _first_sentence(exc))) from None
            if attempt == _REOPEN_TRIES - 1:
                raise StoreUnavailableError(
                    f"cannot open the triple store at {path} read-only: {exc}") from exc
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


_ROCKSDB_FILES = ("MANIFEST-*", "*.sst", "*.log", "IDENTITY", "OPTIONS-*")


def _refuse_damaged(path: Path) -> None:
    """Refuse a store folder that holds data but no ``CURRENT`` file: RocksDB would
    open it as a new, empty store, and the catalog would be lost without a word."""
    if not path.is_dir() or (path / "CURRENT").exists():
        return
    if any(next(path.glob(pattern), None) is not None for pattern in _ROCKSDB_FILES):
        raise StoreUnavailableError(_damaged(path, "its CURRENT file is missing"))


def _first_sentence(exc: BaseException) -> str:
    """RocksDB's message up to its advice ("  The file ... may be corrupted.")."""
    return str(exc).split("  ")[0]


def _damaged(path: Path, what: str) -> str:
    return (f"the triple store at {path} is damaged ({what}); it was not opened and "
            "nothing in it was changed. Restore the folder from a backup, or move it "
            "aside and load the catalog again (`ontoretrieve catalog load PATH`), which "
            "builds a new store")


def _quads(rows: Sequence[ox.Triple] | Sequence[Statement], graph: ox.NamedNode
           ) -> list[ox.Quad]:
    """``rows`` in ``graph``. Statements (an applied version's) go in as they are: making
    an ``ox.Triple`` of each first cost GO's 389k about 1 s. Triples are read by
    attribute, which is quicker on them than by index (0.7-0.8 s against 0.8-1.0 s).

    >>> a = ox.NamedNode("http://x/a")
    >>> _quads([(a, a, a)], a) == _quads([ox.Triple(a, a, a)], a) == [ox.Quad(a, a, a, a)]
    True
    """
    if rows and isinstance(rows[0], ox.Triple):
        triples = cast(Sequence[ox.Triple], rows)
        return [ox.Quad(t.subject, t.predicate, t.object, graph) for t in triples]
    return [ox.Quad(s, p, o, graph) for s, p, o in cast(Sequence[Statement], rows)]
