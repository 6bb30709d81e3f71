"""What the benchmark scripts share: a report's stamp and output, and the preamble that
runs a child process on an older checkout's code."""

from __future__ import annotations

import json
import os
import platform
import statistics
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

CHECKOUT_PREAMBLE = """
import sys
checkout = sys.argv[1]
if checkout:  # an editable install's finder comes before PYTHONPATH: set it aside
    sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f)]
    sys.path.insert(0, checkout)
"""
"""The start of a child's code: with a checkout as its first argument, that checkout's
``ontoretrieve`` is imported instead of the installed one."""


RESIDENT_MB = """
def resident_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20
"""
"""A child's function (after its imports): the process's resident memory now, in MB."""


def in_turn_and_reverse(sides: Sequence[T], rounds: int) -> Iterator[T]:
    """The sides in order, then in reverse, round after round: a steady drift of the
    machine's speed then weighs on every side alike.

    >>> list(in_turn_and_reverse(["a", "b"], 3))
    ['a', 'b', 'b', 'a', 'a', 'b']
    """
    for turn in range(rounds):
        yield from (sides if turn % 2 == 0 else list(reversed(sides)))


def medians(runs: Mapping[str, Sequence[Mapping[str, float]]], keys: Sequence[str]
            ) -> dict[str, dict[str, float]]:
    """Each side's median of each key over its runs, to 3 decimals."""
    return {side: {k: round(statistics.median(r[k] for r in rs), 3) for k in keys}
            for side, rs in runs.items()}


def stamp() -> dict[str, Any]:
    """The date and machine every report starts with."""
    return {"date": datetime.now(UTC).isoformat(timespec="seconds"),
            "machine": f"{platform.machine()}, {platform.python_version()}, "
                       f"{os.cpu_count()} cores"}


def emit(report: dict[str, Any], out: Path | None) -> None:
    """Print the report as JSON, and write it to ``out`` too when given."""
    text = json.dumps(report, indent=2)
    if out:
        out.write_text(text + "\n")
    print(text)
