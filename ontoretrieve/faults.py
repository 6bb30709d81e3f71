"""Named crash points for the crash tests; inert unless ``ONTORETRIEVE_CRASH_AT`` names one.

A production module marks the moments a crash would hurt most (a graph
written but not yet recorded, a catalog switched) with ``checkpoint(name)``;
the crash tests set ``ONTORETRIEVE_CRASH_AT=name`` and the process kills
itself there with SIGKILL, exactly as an outside kill would: no cleanup runs.

>>> checkpoint("nothing.set")  # without the variable, a no-op
"""

from __future__ import annotations

import os
import signal

__all__ = ["checkpoint"]


def checkpoint(name: str) -> None:
    """Kill this process here when ``ONTORETRIEVE_CRASH_AT`` is ``name``."""
    if os.environ.get("ONTORETRIEVE_CRASH_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
