"""Read a Qdrant Edge shard that another process holds open.

An Edge shard admits one process (its write-ahead log is locked), so a reader
beside the writer (an MCP server beside the HTTP one, a CLI lookup beside
``watch``) reads a replica: a copy of the shard's files taken while no sync
writes it (the writer holds ``index.write.lock`` exclusively for each sync, the
copy holds it shared), settled once (its copied log replayed into the
segments), then shared by every reading process. Each reader opens a view of
it: the replica's folders made again, each file a hard link to the replica's, and
an empty log of its own. Opening a segment rewrites its small state file by
renaming a new one over it, which replaces the view's link, not the shared
file; searching writes nothing (the tests check the replica byte for byte
after two readers), so views share the replica safely.

A replica is made once per index state (the digest of the state file names
it) and removed when a newer one exists and no living process views it. It
costs the shard's size on disk and one copy per index change.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import shutil
from pathlib import Path

import qdrant_edge as qe

from ontoretrieve.backends.access import exclusive_lock, shared_lock, writable_place
from ontoretrieve.backends.qdrant_edge import EdgeIndex
from ontoretrieve.errors import VectorIndexError

__all__ = ["READERS_DIR", "open_view", "readers_root", "replica_of"]

log = logging.getLogger(__name__)

READERS_DIR = "readers"
_READY = "READY"
_views = itertools.count()


def open_view(shard: Path, key: str, dimension: int, distance: str, write_lock: Path,
              wait_seconds: float | None = None, search_threads: int | None = None
              ) -> EdgeIndex:
    """A read-only ``EdgeIndex`` over the replica of ``shard`` as of ``key``.

    Raises ``VectorIndexError`` when a sync holds the shard for longer than
    ``wait_seconds`` (None: wait for it) or the shard cannot be read.
    """
    replica = replica_of(shard, key, write_lock, wait_seconds)
    views = replica / "views"
    _remove_dead_views(views)
    view = views / f"{os.getpid()}-{next(_views)}"
    shutil.rmtree(view, ignore_errors=True)
    (view / "wal").mkdir(parents=True)
    _mirror(replica / "segments", view / "segments")
    shutil.copy2(replica / "edge_config.json", view / "edge_config.json")
    try:
        return EdgeIndex(view, dimension, distance, search_threads=search_threads,
                         on_close=lambda: shutil.rmtree(view, ignore_errors=True))
    except BaseException:
        shutil.rmtree(view, ignore_errors=True)
        raise


def _mirror(source: Path, target: Path) -> None:
    """``source``'s folders made again under ``target``, each file a hard link to its
    original (Edge counts storage pages by regular files: a symbolic link is not one).

    Edge rewrites a segment's state file (``segment.json``) when it opens one,
    by writing a new file and renaming it over the old: in a mirror the rename
    replaces the view's own link, so the shared replica stays as it was.
    """
    for folder, _, files in os.walk(source):
        here = target / Path(folder).relative_to(source)
        here.mkdir(parents=True, exist_ok=True)
        for name in files:
            os.link(Path(folder, name), here / name)


def readers_root(shard: Path) -> Path:
    """Where the replicas of ``shard`` live: beside it, or, when its data directory
    cannot be written (a read-only mount), in a folder of this user's under the
    system's temporary directory (``writable_place``).

    >>> import tempfile
    >>> readers_root(Path(tempfile.mkdtemp(), "edge_1")).name
    'readers'
    """
    return writable_place(shard.parent / READERS_DIR)


def replica_of(shard: Path, key: str, write_lock: Path,
               wait_seconds: float | None = None) -> Path:
    """The settled replica of ``shard`` for index state ``key``, made if needed."""
    root = readers_root(shard)
    target = root / f"{shard.name}-{key}"
    if (target / _READY).exists():
        return target
    root.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(root / f"{target.name}.lock"):  # one process copies, others wait
        if (target / _READY).exists():
            return target
        temporary = root / f".{target.name}.{os.getpid()}"
        shutil.rmtree(temporary, ignore_errors=True)
        with shared_lock(write_lock, wait_seconds) as quiet:
            if not quiet:
                raise VectorIndexError(
                    f"the index at {shard} is being written by another process; "
                    "try again when its sync has finished")
            log.info("copying the index %s for this reader", shard)
            try:
                shutil.copytree(shard, temporary)
            except OSError as exc:
                shutil.rmtree(temporary, ignore_errors=True)
                raise VectorIndexError(f"cannot copy the index at {shard} for reading: "
                                       f"{exc}") from exc
        _settle(temporary)
        temporary.rename(target)
        (target / _READY).touch()
    _remove_stale_replicas(root, keep=target)
    return target


def _settle(folder: Path) -> None:
    """Replay the copied log into the segments, then drop it: views bring their own."""
    try:
        shard = qe.EdgeShard.load(str(folder))
        shard.flush()
        shard.close()
    except Exception as exc:  # the binding raises plain Exception subclasses
        shutil.rmtree(folder, ignore_errors=True)
        raise VectorIndexError(f"cannot read the copy of the index in {folder}: {exc}") from exc
    shutil.rmtree(folder / "wal")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_dead_views(views: Path) -> None:
    for view in views.glob("*-*") if views.is_dir() else ():
        pid = view.name.split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(view, ignore_errors=True)


def _remove_stale_replicas(root: Path, keep: Path) -> None:
    """Older replicas that no living process views (a crashed copy's leftovers too)."""
    for replica in root.iterdir():
        if replica == keep or not replica.is_dir():
            continue
        if replica.name.startswith("."):  # a copy in progress, unless its maker died
            pid = replica.name.rsplit(".", 1)[-1]
            if not pid.isdigit() or _alive(int(pid)):
                continue
        views = replica / "views"
        _remove_dead_views(views)
        if not (views.is_dir() and any(views.iterdir())):
            shutil.rmtree(replica, ignore_errors=True)
            with contextlib.suppress(OSError):
                (root / f"{replica.name}.lock").unlink()
