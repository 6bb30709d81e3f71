"""Catalog files: which files are RDF, how each parses, and what ontology it is.

The pure core of catalog loading. No store is touched here;
``catalog.store.Catalog`` records the results.

>>> rdf_format(Path("pizza.owl"))
<RdfFormat RDF/XML>
>>> rdf_format(Path("README.md")) is None
True
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from ontoretrieve.catalog.entities import entity_problem
from ontoretrieve.errors import CatalogParseError, CatalogPathError
from ontoretrieve.rdf.canonical import graph_hash
from ontoretrieve.rdf.graph_index import Statement
from ontoretrieve.rdf.vocab import (
    OWL_IMPORTS,
    OWL_ONTOLOGY_NODE,
    OWL_VERSION_INFO,
    OWL_VERSION_IRI,
    RDF_TYPE_NODE,
    derived_ontology_iri,
)

__all__ = [
    "Identity",
    "ParsedFile",
    "discover_files",
    "identify",
    "parse_file",
    "rdf_format",
    "stage_upload",
]

_FORMATS: dict[str, ox.RdfFormat] = {
    ".ttl": ox.RdfFormat.TURTLE,
    ".turtle": ox.RdfFormat.TURTLE,
    ".owl": ox.RdfFormat.RDF_XML,
    ".rdf": ox.RdfFormat.RDF_XML,
    ".nt": ox.RdfFormat.N_TRIPLES,
    ".nq": ox.RdfFormat.N_QUADS,
    ".trig": ox.RdfFormat.TRIG,
    ".jsonld": ox.RdfFormat.JSON_LD,
    ".n3": ox.RdfFormat.N3,
}

_IMPORTS = ox.NamedNode(OWL_IMPORTS)
_VERSION_IRI = ox.NamedNode(OWL_VERSION_IRI)
_VERSION_INFO = ox.NamedNode(OWL_VERSION_INFO)


def rdf_format(path: Path) -> ox.RdfFormat | None:
    """The RDF format of a file by its extension, or None for any other file."""
    return _FORMATS.get(path.suffix.lower())


def discover_files(path: Path) -> tuple[list[Path], list[Path]]:
    """The RDF files under ``path`` (a file or a folder, recursively), and the rest.

    Hidden files and folders are ignored; links to folders are not followed (they
    are among the rest). Raises ``CatalogPathError`` when the path does not exist
    or holds no RDF file.
    """
    if not path.exists():
        raise CatalogPathError(f"catalog path {path} does not exist")
    if path.is_file():
        if rdf_format(path) is None:
            known = ", ".join(sorted(_FORMATS))
            raise CatalogPathError(f"{path}: not an RDF file (known extensions: {known})")
        return [path.resolve()], []
    rdf: list[Path] = []
    other: list[Path] = []
    for candidate in sorted(path.rglob("*")):
        relative = candidate.relative_to(path)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if candidate.is_symlink() and candidate.is_dir():
            other.append(candidate)  # not followed; the load report says so
            continue
        if candidate.is_file():
            (rdf if rdf_format(candidate) else other).append(candidate.resolve())
    if not rdf:
        raise CatalogPathError(f"catalog folder {path} holds no RDF file")
    return rdf, other


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """One catalog file read, parsed and hashed."""

    path: Path
    rdf_format: ox.RdfFormat
    file_digest: str
    triples: list[ox.Triple]
    content_hash: str


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


DEFAULT_MAX_FILE_BYTES = 64 << 20
"""``catalog.max_file_mb`` by default."""


def parse_file(path: Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> ParsedFile:
    """Parse one file; raise ``CatalogParseError`` with file, line and column.

    Named graphs in N-Quads, TriG or JSON-LD files are merged: a file is one
    ontology. A file over ``max_bytes`` (``catalog.max_file_mb``) is refused
    before it is read, as is RDF/XML whose entities would expand without bound
    (``entities``): a parse holds the whole file in memory.
    """
    fmt = rdf_format(path)
    if fmt is None:
        raise CatalogParseError(str(path), 0, 0, "not an RDF file extension")
    data = _read_bounded(path, max_bytes)
    body = data.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte order mark is no RDF
    if fmt == ox.RdfFormat.RDF_XML:
        problem = entity_problem(body)
        if problem is not None:
            raise CatalogParseError(str(path), 0, 0, f"refused: {problem}")
    try:
        # Fresh blank-node ids: two files that both say _:b0 mean two nodes.
        quads = ox.parse(body, format=fmt, base_iri=path.resolve().as_uri(),
                         rename_blank_nodes=True)
        triples = list(dict.fromkeys(q.triple for q in quads))
    except SyntaxError as exc:
        reason = exc.msg.split(": ", 1)[-1] if exc.msg else str(exc)
        if "LoadDocumentCallback" in reason:
            reason = ("its JSON-LD @context is remote and ontoretrieve does not fetch it; "
                      "inline the context in the file")
        raise CatalogParseError(str(path), exc.lineno or 0, exc.offset or 0, reason) from exc
    except ValueError as exc:
        raise CatalogParseError(str(path), 0, 0, str(exc)) from exc
    if not triples:
        raise CatalogParseError(str(path), 0, 0, "the file holds no triple")
    return ParsedFile(
        path=path,
        rdf_format=fmt,
        file_digest=hashlib.sha256(data).hexdigest(),
        triples=triples,
        content_hash=graph_hash(triples),
    )


def _read_bounded(path: Path, max_bytes: int) -> bytes:
    """The file's bytes, reading at most one byte past ``max_bytes`` (a device or a
    growing file is never read whole)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise CatalogParseError(str(path), 0, 0, f"cannot read: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:
        raise CatalogParseError(
            str(path), 0, 0, f"refused: the file is over {max_bytes >> 20:,} MiB "
            "(catalog.max_file_mb; a parse holds about 20 times the file in memory)")
    return data


@dataclass(frozen=True, slots=True)
class Identity:
    """Which ontology a file holds."""

    iri: str
    derived: bool
    version: str | None
    warnings: list[str] = field(default_factory=list)


def identify(triples: Sequence[ox.Triple] | Sequence[Statement], name: str) -> Identity:
    """The ontology IRI and version of a parsed file.

    The IRI is the owl:Ontology subject; with several, the one no other
    imports (then the smallest); with none, one derived from ``name``
    (``vocab.derived_ontology_iri``) (the file's path without extension). The version is
    owl:versionIRI, else owl:versionInfo. ``triples`` may be statements (an applied
    version's, which are never made into triples).

    >>> o = ox.NamedNode("http://x/o")
    >>> t = [ox.Triple(o, RDF_TYPE_NODE, OWL_ONTOLOGY_NODE),
    ...      ox.Triple(o, _VERSION_INFO, ox.Literal("1.2"))]
    >>> identify(t, "x")
    Identity(iri='http://x/o', derived=False, version='1.2', warnings=[])
    >>> identify([], "vocab/my onto").derived
    True
    """
    headers = sorted(
        {t[0].value for t in triples
         if t[1] == RDF_TYPE_NODE and t[2] == OWL_ONTOLOGY_NODE
         and isinstance(t[0], ox.NamedNode)}
    )
    warnings: list[str] = []
    if not headers:
        return Identity(derived_ontology_iri(name), True, None)
    chosen = headers[0]
    if len(headers) > 1:
        imported = {t[2].value for t in triples
                    if t[1] == _IMPORTS and isinstance(t[2], ox.NamedNode)}
        roots = [h for h in headers if h not in imported] or headers
        chosen = roots[0]
        warnings.append(f"{len(headers)} owl:Ontology headers; using {chosen}")
    subject = ox.NamedNode(chosen)
    version: str | None = None
    for predicate in (_VERSION_IRI, _VERSION_INFO):
        values = sorted(t[2].value for t in triples
                        if t[0] == subject and t[1] == predicate
                        and isinstance(t[2], ox.NamedNode | ox.Literal))
        if values:
            version = values[0]
            break
    return Identity(chosen, False, version, warnings)


_PLACEHOLDER = re.compile(r"\$\$[A-Za-z0-9_]+\$\$|\{\{[^{}]+\}\}|\$\{[A-Za-z0-9_]+\}")


def template_placeholders(triples: Sequence[ox.Triple]) -> dict[str, int]:
    """Unexpanded build-template placeholders in the file's IRIs, with how many IRIs
    carry each: a source template loaded instead of a release (QUDT's sources say
    ``http://qudt.org/$$QUDT_VERSION$$/vocab/unit``), whose IRIs no one can use.

    >>> t = ox.Triple(ox.NamedNode("http://q/$$V$$/u"), ox.NamedNode("http://p"),
    ...               ox.NamedNode("http://q/$$V$$/s"))
    >>> template_placeholders([t])
    {'$$V$$': 2}
    """
    iris = {term.value for t in triples for term in (t.subject, t.predicate, t.object)
            if isinstance(term, ox.NamedNode) and ("$" in term.value or "{" in term.value)}
    found: dict[str, int] = {}
    for iri in sorted(iris):
        for placeholder in set(_PLACEHOLDER.findall(iri)):
            found[placeholder] = found.get(placeholder, 0) + 1
    return found


_UPLOAD_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}")


def stage_upload(folder: Path, filename: str, content: bytes,
                 max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> Path:
    """Write one uploaded RDF file into ``folder`` once it parses; return its path.

    The name is checked (letters, digits, ``. _ -``; a known RDF extension), so an
    upload never writes outside the folder; the content is staged beside the folder
    and parsed there first, so a file that does not parse is refused (file, line,
    column) instead of joining the catalog; the file appears atomically (a
    same-named upload replaces it).

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp()) / "uploads"
    >>> stage_upload(folder, "a.nt", b"<http://x/a> <http://x/p> <http://x/b> .").name
    'a.nt'
    >>> stage_upload(folder, "../a.nt", b"")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ontoretrieve.errors.CatalogPathError: upload name '../a.nt' is not allowed: ...
    """
    if not _UPLOAD_NAME.fullmatch(filename) or ".." in filename:
        raise CatalogPathError(f"upload name {filename!r} is not allowed: use letters, "
                               "digits, '.', '_' and '-'")
    target = folder / filename
    if rdf_format(target) is None:
        raise CatalogPathError(f"upload {filename!r}: not a known RDF file extension")
    staging = folder.parent / f".staging-{folder.name}-{os.getpid()}-{threading.get_ident()}"
    staging.mkdir(parents=True, exist_ok=True)
    staged = staging / filename
    try:
        staged.write_bytes(content)
        try:
            parse_file(staged, max_bytes)
        except CatalogParseError as exc:
            raise CatalogParseError(filename, exc.line, exc.column, exc.reason) from None
        folder.mkdir(parents=True, exist_ok=True)
        os.replace(staged, target)
    finally:
        staged.unlink(missing_ok=True)
        staging.rmdir()
    return target
