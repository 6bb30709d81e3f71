"""The content digests of indexed ontology versions, kept beside the tenant's index.

A version's content hash is the SHA-256 of its sorted triple digests
(``rdf/canonical.py``). Kept on disk, those digests let a proposal hash the
version it makes from the change alone (``changed_digests``: a few milliseconds
for GO's 388k triples, where hashing the whole new version takes 1.6 s).

``<tenant dir>/digests/<content hash>.digests``: a format line, the SHA-256 of the
digests, then the sorted 16-byte digests, concatenated (16 bytes a triple).
They are the digests of the version's triples *as the store keeps them*, which
is what a proposal changes: a store may write some typed literals in a
canonical form ("1"^^xsd:nonNegativeInteger as an xsd:integer), so for a
version loaded from a file they need not hash to its content hash (23 of the
bench catalog's 57 versions), while a version an apply makes is named by the
hash of what is stored. A file whose digests do not hash to its own header is
damaged: never used, only made again. Written by the index sync when it adds a
version (the graph is in hand) or finds an indexed version without one (a
graph read, once), and by an apply for the version it makes and for a base
that had none; removed with the version's points.

>>> import tempfile
>>> import pyoxigraph as ox
>>> from ontoretrieve.rdf.canonical import graph_digests, graph_hash
>>> t = ox.Triple(ox.NamedNode("http://x/s"), ox.NamedNode("http://x/p"), ox.Literal("o"))
>>> store = DigestStore(Path(tempfile.mkdtemp()))
>>> store.put(graph_hash([t]), graph_digests([t]))
>>> store.get(graph_hash([t])) == graph_digests([t]), store.get("0" * 64)
(True, None)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from ontoretrieve.kept import write_atomic
from ontoretrieve.rdf.canonical import DIGEST_BYTES, digests_hash

__all__ = ["DigestStore"]

log = logging.getLogger(__name__)

_FORMAT = b"ontoretrieve-digests-1\n"
"""The first line of a digests file (a file without it is from before: made again)."""
_HEADER = len(_FORMAT) + 32


class DigestStore:
    """One tenant's kept version digests (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._said_cannot_keep = False

    def _path(self, content_hash: str) -> Path:
        return self.folder / f"{content_hash}.digests"

    def has(self, content_hash: str) -> bool:
        """A file in the current format is there (not yet checked against its header)."""
        try:
            with self._path(content_hash).open("rb") as handle:
                return handle.read(len(_FORMAT)) == _FORMAT
        except OSError:
            return False

    def get(self, content_hash: str) -> list[bytes] | None:
        """The version's sorted digests; None when missing, from before the format, or
        damaged (their hash is not the file's header: a warning, and it is made again)."""
        try:
            data = self._path(content_hash).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("version digests %s are unreadable (%s)", self._path(content_hash),
                        exc.strerror or exc)
            return None
        if not data.startswith(_FORMAT):
            return None
        body = data[_HEADER:]
        digests = [body[i:i + DIGEST_BYTES] for i in range(0, len(body), DIGEST_BYTES)]
        if len(body) % DIGEST_BYTES or digests_hash(digests) != data[len(_FORMAT):_HEADER].hex():
            log.warning("version digests %s are damaged: ignored, made again",
                        self._path(content_hash))
            return None
        return digests

    def put(self, content_hash: str, digests: Sequence[bytes]) -> None:
        """Keep the version's digests (atomically); a read-only data dir only warns once."""
        body = b"".join(digests)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomic(self._path(content_hash),
                         _FORMAT + bytes.fromhex(digests_hash(digests)) + body)
        except OSError as exc:
            if not self._said_cannot_keep:
                log.warning("cannot keep version digests in %s (%s): proposals hash whole "
                            "versions until it is writable", self.folder,
                            exc.strerror or exc)
                self._said_cannot_keep = True

    def remove(self, content_hash: str) -> None:
        """Forget the version's digests."""
        self._path(content_hash).unlink(missing_ok=True)
