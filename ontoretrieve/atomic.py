"""Atomic file writes: a temporary file in the same folder, fsync, rename.

A reader sees the old file or the new one, never half of one, and a process
killed midway leaves at most a temporary file behind (``.tmp-*``).

>>> import tempfile
>>> from pathlib import Path
>>> target = Path(tempfile.mkdtemp()) / "a" / "x.json"
>>> write_atomic(target, b"{}")
>>> target.read_bytes()
b'{}'
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_atomic"]


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
