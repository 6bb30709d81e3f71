"""Every error ontoretrieve raises, in one tree.

Errors from the libraries underneath (pyoxigraph, SPARQLWrapper, httpx,
pydantic) are mapped onto this tree at the boundary where they occur, so a
caller catches ``OntoRetrieveError`` and nothing foreign leaks out::

    OntoRetrieveError
    ├── SettingsError            a setting has a wrong value (names it and why)
    ├── CatalogError
    │   ├── CatalogPathError     the catalog path is missing or holds no RDF file
    │   └── CatalogParseError    one file does not parse (file, line, column)
    ├── StoreError
    │   ├── StoreUnavailableError  the triple store cannot be reached or opened
    │   │   └── DataDirBusyError   another process writes the data directory
    │   └── StoreQueryError        the store rejected a query or an update
    ├── IndexError_
    │   ├── EmbeddingContractMismatchError  the index was built with other settings
    │   ├── EmbeddingModelError      a model cannot be found or loaded
    │   └── VectorIndexError         the vector index failed
    ├── ProposalError            a proposal that cannot even be checked
    ├── ProposalRejected         a proposal that failed validation (carries the report)
    ├── ConfidenceModelError     the seed confidence model file is malformed or stale
    ├── TextTooLongError         a request text over ``server.max_text_chars``
    ├── UnsafeQueryError         user SPARQL that is not read-only (no surface takes it)
    └── TenantError              an invalid or unknown tenant id, or an include cycle

Each error also derives from the closest built-in exception (``ValueError``,
``FileNotFoundError``, ``SyntaxError``, ``OSError``), so generic handlers work.
Adapters translate a library's errors with ``map_errors`` at the call that may
raise them.

>>> issubclass(CatalogPathError, FileNotFoundError)
True
>>> str(CatalogParseError("broken.ttl", 3, 7, "Unexpected end of file"))
'broken.ttl:3:7: Unexpected end of file'
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

__all__ = [
    "CatalogError",
    "CatalogParseError",
    "CatalogPathError",
    "ConfidenceModelError",
    "DataDirBusyError",
    "EmbeddingContractMismatchError",
    "EmbeddingModelError",
    "IndexError_",
    "OntoRetrieveError",
    "ProposalError",
    "ProposalRejected",
    "ReadOnlyDataDirError",
    "SettingsError",
    "StoreError",
    "StoreQueryError",
    "StoreUnavailableError",
    "TenantError",
    "TextTooLongError",
    "UnsafeQueryError",
    "VectorIndexError",
    "map_errors",
]


class OntoRetrieveError(Exception):
    """Root of every error raised by ontoretrieve."""


class SettingsError(OntoRetrieveError, ValueError):
    """A setting has a wrong value; the message names the setting and why."""


class CatalogError(OntoRetrieveError):
    """The catalog cannot be read as asked."""


class CatalogPathError(CatalogError, FileNotFoundError):
    """The catalog path does not exist, or holds no file in a known RDF format."""


class CatalogParseError(CatalogError, SyntaxError):
    """One catalog file does not parse.

    ``path``, ``line`` and ``column`` say where (1-based; 0 when the parser
    gave no position).
    """

    def __init__(self, path: str, line: int, column: int, reason: str) -> None:
        super().__init__(f"{path}:{line}:{column}: {reason}")
        self.path = path
        self.line = line
        self.column = column
        self.reason = reason
        # SyntaxError's own fields, so tracebacks and IDEs point at the spot.
        self.filename = path
        self.lineno = line
        self.offset = column

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.reason}"


class StoreError(OntoRetrieveError):
    """The triple store failed."""


class StoreUnavailableError(StoreError, OSError):
    """The triple store cannot be reached (endpoint down) or opened (bad path)."""


class DataDirBusyError(StoreUnavailableError):
    """A write refused: another process holds the data directory's writer lock."""


class ReadOnlyDataDirError(StoreUnavailableError):
    """A write refused: the data directory cannot be written (a read-only mount)."""


class StoreQueryError(StoreError, ValueError):
    """The triple store rejected a query or an update."""


class IndexError_(OntoRetrieveError):
    """The vector index cannot be built, opened or used as configured.

    (Named with a trailing underscore so it never shadows the built-in IndexError.)
    """


class EmbeddingContractMismatchError(IndexError_, ValueError):
    """The index was built with settings that shape its contents differently.

    ``differences`` maps each differing fingerprint key to (stored, configured).
    """

    def __init__(self, location: str, differences: dict[str, tuple[str | None, str | None]]
                 ) -> None:
        shown = "; ".join(f"{key}: index has {old!r}, settings say {new!r}"
                          for key, (old, new) in sorted(differences.items()))
        super().__init__(
            f"the index at {location} was built with other settings ({shown}). "
            "Rebuild it with `ontoretrieve index --rebuild`, or restore those settings.")
        self.location = location
        self.differences = differences


class EmbeddingModelError(IndexError_, OSError):
    """An embedding model cannot be found or loaded."""


class VectorIndexError(IndexError_, OSError):
    """The vector index cannot be opened, or rejected an operation."""


class ProposalError(OntoRetrieveError, ValueError):
    """A proposal that cannot even be checked (malformed triples, no updates)."""


class ProposalRejected(OntoRetrieveError, ValueError):
    """The proposal did not pass validation.

    ``report`` is the ``proposals.model.ProposalReport`` that says why, check by
    check (typed loosely here: this module sits below every record).
    """

    def __init__(self, message: str, report: Any) -> None:
        super().__init__(message)
        self.report = report


class ConfidenceModelError(OntoRetrieveError, ValueError):
    """The seed confidence model cannot be used: its file is malformed (names the file,
    tree and node) or it reads signals this version does not compute."""


class TextTooLongError(OntoRetrieveError, ValueError):
    """A request text is longer than ``server.max_text_chars``."""


class UnsafeQueryError(OntoRetrieveError, ValueError):
    """SPARQL passed by a user is not a read-only query.

    No surface takes user SPARQL today, so nothing raises it; it stays in the public
    API so that code catching it keeps importing."""


class TenantError(OntoRetrieveError, ValueError):
    """A tenant id is invalid or undeclared, or tenant includes form a cycle."""


ErrorMapping = Mapping[type[BaseException] | tuple[type[BaseException], ...],
                       Callable[[BaseException], OntoRetrieveError]]
"""Library error types, in order, and how to say each as an ontoretrieve error."""


@contextmanager
def map_errors(mapping: ErrorMapping) -> Iterator[None]:
    """Re-raise a library error as the ontoretrieve error its first matching entry makes.

    Errors already in this tree, and errors no entry matches, pass unchanged.

    >>> with map_errors({OSError: lambda e: StoreUnavailableError(f"store: {e}")}):
    ...     raise OSError("disk gone")
    Traceback (most recent call last):
    ...
    ontoretrieve.errors.StoreUnavailableError: store: disk gone
    """
    try:
        yield
    except OntoRetrieveError:
        raise
    except BaseException as exc:
        for kinds, make in mapping.items():
            if isinstance(exc, kinds):
                raise make(exc) from exc
        raise
