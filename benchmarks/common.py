"""What the benchmark scripts share: a report's stamp and output, and the preamble that
runs a child process on an older checkout's code."""

from __future__ import annotations

import json
import os
import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

CHECKOUT_PREAMBLE = """
import sys
checkout = sys.argv[1]
if checkout:  # an editable install's finder comes before PYTHONPATH: set it aside
    sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f)]
    sys.path.insert(0, checkout)
"""
"""The start of a child's code: with a checkout as its first argument, that checkout's
``ontoretrieve`` is imported instead of the installed one."""


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
