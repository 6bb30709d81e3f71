"""Files the project keeps beside its stores: written in one rename, read back with care.

A write goes to a temporary file in the same folder, is synced, then renamed
over the target: a reader sees the old file or the new one, never half of
one, and a process killed midway leaves at most a temporary file behind
(``.tmp-*``). A kept pickle (mention dictionaries, graph statements) is a
cache: one that is missing or does not read is made again, never trusted.

>>> import tempfile
>>> from pathlib import Path
>>> target = Path(tempfile.mkdtemp()) / "a" / "x.json"
>>> write_atomic(target, b"{}")
>>> target.read_bytes()
b'{}'
"""

from __future__ import annotations

import logging
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from ontoretrieve.collector import collector_paused

__all__ = ["read_pickle", "write_atomic"]

log = logging.getLogger(__name__)


def write_atomic(path: Path, data: bytes, prefix: str = ".tmp-") -> None:
    """Replace ``path`` with ``data`` in one rename (folders made as needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=prefix)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_pickle(path: Path, what: str) -> Any | None:
    """The content of a kept pickle; None when it is missing, or (with a warning naming
    ``what`` and the file) damaged. Loaded with the collector paused: a kept pickle is
    millions of acyclic objects (``ontoretrieve.collector``).

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_atomic(folder / "k.pickle", pickle.dumps({"a": 1}))
    >>> read_pickle(folder / "k.pickle", "a cache"), read_pickle(folder / "no", "a cache")
    ({'a': 1}, None)
    """
    try:
        with path.open("rb") as handle, collector_paused():
            return pickle.load(handle)
    except FileNotFoundError:
        return None
    except Exception as exc:  # pickle raises anything on a damaged file
        log.warning("%s %s is unreadable (%s); making it again", what, path, exc)
        return None
