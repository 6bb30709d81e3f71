"""Who may write a data directory: one writer process, any number of readers.

The first process that opens a data directory to write takes its writer lock
(an advisory ``flock`` on ``writer.lock``, released by the kernel when the
process ends, so a crash never leaves a stale lock) and records its PID and
command there. Any other process opens the same directory to read: the triple
store read-only, the vector index through a replica (``edge_replica``). A
process that needs to write while another holds the lock gets a
``DataDirBusyError`` that names the holder, or waits for it.

Inside the directory, a writer also holds ``index.write.lock`` of a tenant's
index for the length of each sync, so a reader copies a shard only between
writes (``shared_lock``).

>>> import tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> first = WriterLock.acquire(folder, "ontoretrieve serve")
>>> holder_of(folder).command
'ontoretrieve serve'
>>> WriterLock.acquire(folder, "ontoretrieve index") is None  # a second writer
True
>>> first.release()
>>> holder_of(folder) is None
True
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import itertools
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from ontoretrieve.errors import DataDirBusyError, ReadOnlyDataDirError, StoreUnavailableError

__all__ = [
    "Access",
    "Holder",
    "WriterLock",
    "busy_error",
    "claim",
    "exclusive_lock",
    "file_stamp",
    "holder_of",
    "not_writable_error",
    "shared_lock",
    "this_command",
    "writable_place",
]

LOCK_FILE = "writer.lock"
_POLL_SECONDS = 0.2


class Access(StrEnum):
    """How a process opens a data directory."""

    WRITE = "write"
    """Take the writer lock or fail (or wait) with ``DataDirBusyError``."""
    AUTO = "auto"
    """Write if no other process does, else read (servers, retrieve)."""
    READ = "read"
    """Read; never take the writer lock (listings, status, lookups)."""


@dataclass(frozen=True)
class Holder:
    """The process that holds a data directory's writer lock."""

    pid: int
    command: str
    since: str

    def describe(self) -> str:
        """``PID 1234 (ontoretrieve serve, since 2026-12-02 13:02 UTC)``."""
        return f"PID {self.pid} ({self.command}, since {self.since})"


def this_command() -> str:
    """This process's command line, short: ``ontoretrieve serve`` rather than a path."""
    if not sys.argv or not sys.argv[0]:
        return "python"
    words = list(itertools.takewhile(lambda word: not word.startswith("-"), sys.argv[1:3]))
    program = Path(sys.argv[0])
    name = program.parent.name if program.name == "__main__.py" else program.name  # -m
    return " ".join([name, *words])


class WriterLock:
    """The writer lock of one data directory, held by this process until released."""

    def __init__(self, path: Path, handle: int) -> None:
        self.path = path
        self._handle: int | None = handle

    @classmethod
    def acquire(cls, data_dir: Path, command: str | None = None,
                wait_seconds: float = 0.0) -> WriterLock | None:
        """The lock, or None when another process (or another engine of this one)
        holds it for longer than ``wait_seconds``; ``ReadOnlyDataDirError`` when
        nobody can write the directory."""
        path = data_dir / LOCK_FILE
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
            handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            if exc.errno in _NOT_WRITABLE:
                raise _read_only(data_dir, exc.strerror) from None
            raise
        if not _flock(handle, fcntl.LOCK_EX, wait_seconds):
            os.close(handle)
            return None
        since = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        record = json.dumps({"pid": os.getpid(), "command": command or this_command(),
                             "since": since}).encode()
        os.ftruncate(handle, 0)
        os.pwrite(handle, record, 0)
        return cls(path, handle)

    @classmethod
    def require(cls, data_dir: Path, command: str | None = None,
                wait_seconds: float = 0.0) -> WriterLock:
        """The lock, or ``DataDirBusyError`` naming the process that holds it."""
        lock = cls.acquire(data_dir, command, wait_seconds)
        if lock is None:
            raise busy_error(data_dir, wait_seconds)
        return lock

    def release(self) -> None:
        """Give the lock up (safe to repeat); the record is cleared first."""
        if self._handle is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._handle, 0)
        os.close(self._handle)  # closing the descriptor drops the flock
        self._handle = None


def claim(data_dir: Path, access: Access, wait_seconds: float = 0.0) -> WriterLock | None:
    """The writer lock as ``access`` asks for it; None: this process reads.

    ``read`` takes the lock only to create a data directory whose embedded store
    does not exist yet (nothing could be read there otherwise); ``auto`` reads a
    directory nobody can write (a read-only mount, a folder of another user).

    Raises:
        StoreUnavailableError: ``data_dir`` is a file, not a folder.
    """
    if data_dir.exists() and not data_dir.is_dir():
        raise StoreUnavailableError(f"the data directory {data_dir} is a file, not a folder")
    if access is Access.WRITE:
        return WriterLock.require(data_dir, wait_seconds=wait_seconds)
    exists = (data_dir / "oxigraph" / "CURRENT").exists()
    if access is Access.READ and exists:
        return None
    try:
        return WriterLock.acquire(data_dir, wait_seconds=wait_seconds)
    except ReadOnlyDataDirError:
        if exists:
            return None
        raise


_NOT_WRITABLE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


def file_stamp(path: Path) -> tuple[int, int] | None:
    """A file's inode and modification time (None: no such file): what a reader in
    another process compares to see that a writer replaced or rewrote the file."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns


def holder_of(data_dir: Path) -> Holder | None:
    """Who holds the writer lock of ``data_dir`` now (None: nobody)."""
    path = data_dir / LOCK_FILE
    try:
        handle = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        if _flock(handle, fcntl.LOCK_SH, 0.0):  # free: whatever the file says is old
            fcntl.flock(handle, fcntl.LOCK_UN)
            return None
        raw = os.pread(handle, 4096, 0)
    finally:
        os.close(handle)
    try:
        record = json.loads(raw)
        return Holder(int(record["pid"]), str(record["command"]), str(record["since"]))
    except (ValueError, KeyError, TypeError):
        return Holder(0, "another process", "an unknown time")  # between lock and record


def writable_place(folder: Path) -> Path:
    """``folder``, or when it cannot be made or written (a read-only data directory),
    a folder of this user's under the system's temporary directory named by its path:
    where a reader keeps what it must write (a model's files, an index replica).

    >>> import tempfile
    >>> inside = Path(tempfile.mkdtemp(), "models")
    >>> writable_place(inside) == inside
    True
    """
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if os.access(existing, os.W_OK):
        return folder
    digest = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"ontoretrieve-{os.getuid()}" / (
        f"{folder.name}-{digest}")


def not_writable_error(data_dir: Path) -> ReadOnlyDataDirError | None:
    """The error of a write refused because nobody can write ``data_dir`` (None: it
    can be written).

    >>> import tempfile
    >>> not_writable_error(Path(tempfile.mkdtemp())) is None
    True
    """
    return None if os.access(data_dir, os.W_OK) else _read_only(data_dir, "not writable")


def _read_only(data_dir: Path, why: str | None) -> ReadOnlyDataDirError:
    return ReadOnlyDataDirError(
        f"the data directory {data_dir} cannot be written ({why}): reads work there, but "
        "loading, indexing, applying or rolling back needs a writable copy (or the "
        "directory mounted read-write)")


def busy_error(data_dir: Path, waited: float = 0.0) -> DataDirBusyError:
    """The error of a write refused because another process writes ``data_dir``."""
    holder = holder_of(data_dir)
    who = holder.describe() if holder else "another process"
    after = f" (waited {waited:g} s)" if waited else ""
    return DataDirBusyError(
        f"the data directory {data_dir} is busy: written by {who}{after}; reads go on "
        "beside it, but a write must run in that process (over its HTTP API for a server) "
        "or after it ends (--wait SECONDS waits for it)")


@contextlib.contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if needed) for the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


@contextlib.contextmanager
def shared_lock(path: Path, wait_seconds: float | None = None) -> Iterator[bool]:
    """Hold a shared ``flock`` on ``path`` for the block; yields whether it was taken
    within ``wait_seconds`` (None: wait as long as it takes)."""
    handle = _open_for_reading(path)
    if handle is None:  # a directory nobody can write has no writer to wait for
        yield True
        return
    try:
        if wait_seconds is None:
            fcntl.flock(handle, fcntl.LOCK_SH)
            yield True
        else:
            yield _flock(handle, fcntl.LOCK_SH, wait_seconds)
    finally:
        os.close(handle)


def _open_for_reading(path: Path) -> int | None:
    """A descriptor to take a shared ``flock`` on (created if needed); on a directory
    nobody can write, the existing file read-only, or None when there is none."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        if exc.errno not in _NOT_WRITABLE:
            raise
    try:
        return os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None


def _flock(handle: int, kind: int, wait_seconds: float) -> bool:
    """Take ``kind`` on ``handle``, polling for up to ``wait_seconds``."""
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            fcntl.flock(handle, kind | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_SECONDS)
