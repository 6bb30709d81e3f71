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
    │   └── StoreQueryError        the store rejected a query or an update
    ├── IndexError_
    │   ├── EmbeddingContractMismatchError  the index was built with other settings
    │   ├── EmbeddingModelError      a model cannot be found or loaded (embed.py)
    │   └── VectorIndexError         the vector index failed (backends/vector_index.py)
    ├── UnsafeQueryError         user SPARQL that is not read-only
    └── TenantError              an invalid or unknown tenant id, or an include cycle

Each error also derives from the closest built-in exception (``ValueError``,
``FileNotFoundError``, ``SyntaxError``, ``OSError``), so generic handlers work.

>>> issubclass(CatalogPathError, FileNotFoundError)
True
>>> str(CatalogParseError("broken.ttl", 3, 7, "Unexpected end of file"))
'broken.ttl:3:7: Unexpected end of file'
"""

from __future__ import annotations

__all__ = [
    "CatalogError",
    "CatalogParseError",
    "CatalogPathError",
    "EmbeddingContractMismatchError",
    "IndexError_",
    "OntoRetrieveError",
    "SettingsError",
    "StoreError",
    "StoreQueryError",
    "StoreUnavailableError",
    "TenantError",
    "UnsafeQueryError",
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


class UnsafeQueryError(OntoRetrieveError, ValueError):
    """SPARQL passed by a user is not a read-only query."""


class TenantError(OntoRetrieveError, ValueError):
    """A tenant id is invalid or undeclared, or tenant includes form a cycle."""
