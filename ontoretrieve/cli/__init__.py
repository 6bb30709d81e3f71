"""The ``ontoretrieve`` command: a thin shell over the Python API.

Contract for scripts: every command takes ``--data-dir`` (or
``ONTORETRIEVE_DATA_DIR``) and ``--config``, and every command that prints
results takes ``--json``, which prints one JSON document on stdout and nothing
else there. Exit codes: 0 done, 1 done in part (a catalog file failed), 2 a
usage, settings, path or store error (message on stderr).

``common`` holds the app and what the commands share; each other module
registers its commands on the app when imported, in the order of the help.
"""

from __future__ import annotations

# The import order is the order of the commands in the help.
# isort: off
from ontoretrieve.cli import catalog  # noqa: F401
from ontoretrieve.cli import bench, propose, retrieve, serve  # noqa: F401
# isort: on
from ontoretrieve.cli.common import app

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``ontoretrieve`` script."""
    app()
