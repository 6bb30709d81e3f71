"""The catalog kept in a triple store: one named graph per ontology version,
and a metadata graph that records each version's identity.

A catalog entry is a source file; each distinct content it has had is a
version. The metadata graph (``tenants.catalog_graph``) holds, per version: the
ontology IRI, its version, the content hash, the named graph, the source, the
file digest, the triple count, the load time and the status (current,
superseded, removed). Data graphs are named by content hash, so identical
contents share one graph, and a graph is always written before the metadata
that points at it: a crash mid-load leaves at worst an unreferenced graph,
never a record of a half-written one.

>>> from ontoretrieve.backends.oxigraph import OxigraphStore
>>> catalog = Catalog(OxigraphStore.in_memory())
>>> catalog.versions()
[]
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pyoxigraph as ox

from ontoretrieve.backends.triple_store import Statement, TripleStore
from ontoretrieve.catalog.files import (
    DEFAULT_MAX_FILE_BYTES,
    discover_files,
    file_digest,
    identify,
    parse_file,
    template_placeholders,
)
from ontoretrieve.errors import CatalogParseError
from ontoretrieve.rdf import sparql
from ontoretrieve.rdf.vocab import (
    LAST_LOAD_STATE,
    OR,
    RDF_TYPE_NODE,
    XSD,
    graph_name,
    version_node,
)
from ontoretrieve.records import (
    FileProblem,
    LoadReport,
    LoadState,
    OntologyVersion,
    VersionStatus,
)
from ontoretrieve.settings import Settings
from ontoretrieve.settings.tenants import DEFAULT_TENANT, catalog_graph, catalog_layers

__all__ = ["Catalog", "ProgressCallback"]

ProgressCallback = Callable[[Path, int, int], None]
"""Called before each file: (path, files done, files in all)."""


_FIELDS = {
    "ontology_iri": "ontologyIri",
    "iri_derived": "iriDerived",
    "version": "version",
    "content_hash": "contentHash",
    "graph": "graph",
    "source": "source",
    "file_digest": "fileDigest",
    "rdf_format": "rdfFormat",
    "triple_count": "tripleCount",
    "loaded_at": "loadedAt",
    "status": "status",
    "origin": "origin",
    "supersedes": "supersedes",
    "added_graph": "addedGraph",
}
_OPTIONAL = {"version", "origin", "supersedes", "added_graph"}


class Catalog:
    """Load catalog files into a ``TripleStore`` and list what it holds.

    A catalog belongs to one tenant (its metadata graph, ``tenants.catalog_graph``);
    ``includes`` names the tenants whose catalogs it reads too, below its own
    (layered catalogs). Loads write only the tenant's own catalog.
    """

    def __init__(self, store: TripleStore, tenant: str = DEFAULT_TENANT,
                 includes: Sequence[str] = (),
                 max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self.store = store
        self.tenant = tenant
        self.max_file_bytes = max_file_bytes
        self.metadata_graph = catalog_graph(tenant)
        self.layer_graphs = list(dict.fromkeys(
            [self.metadata_graph, *(catalog_graph(t) for t in includes)]))

    @classmethod
    def for_tenant(cls, store: TripleStore, settings: Settings,
                   tenant: str = DEFAULT_TENANT) -> Catalog:
        """The tenant's catalog with the layers its settings include."""
        layers = catalog_layers(settings.tenants, tenant)
        return cls(store, tenant, layers[1:], settings.catalog.max_file_mb << 20)

    def load(self, path: Path, progress: ProgressCallback | None = None) -> LoadReport:
        """Load a file or a folder (recursively); see the module docstring.

        Raises ``CatalogPathError`` for a missing or empty path. A file that
        does not parse is reported in ``failed`` while the others load, and
        the report (and the stored load state) is then ``partial``.
        """
        started = time.perf_counter()
        files, skipped = discover_files(path)
        linked = [p for p in skipped if p.is_symlink() and p.is_dir()]
        root = path.resolve()
        every_version = self.versions(include_inactive=True, own_only=True)
        known = {v.source: v for v in every_version if v.status is VersionStatus.CURRENT}
        stored_graphs = {v.graph for v in every_version}
        outcome = _LoadOutcome()
        for done, file in enumerate(files):
            if progress is not None:
                progress(file, done, len(files))
            self._load_file(file, root, known.get(str(file)), stored_graphs, outcome)
        removed = (self._retire_missing(root, {str(f) for f in files}, known)
                   if path.is_dir() else [])
        outcome.warnings.extend(self._shared_iri_warnings())
        outcome.warnings.extend(f"{p}: a link to a folder, not followed (a link may leave "
                                "the catalog or loop); load that folder itself" for p in linked)
        report = LoadReport(
            root=str(root), added=outcome.added, updated=outcome.updated,
            unchanged=outcome.unchanged, removed=removed, failed=outcome.failed,
            skipped=[str(s) for s in skipped], warnings=outcome.warnings,
            partial=bool(outcome.failed), seconds=round(time.perf_counter() - started, 3),
        )
        self._record_state(report.root, partial=report.partial,
                           failed_files=len(report.failed))
        return report

    def _load_file(self, file: Path, root: Path, previous: OntologyVersion | None,
                   stored_graphs: set[str], outcome: _LoadOutcome) -> None:
        """Load one file unless its bytes or its content are those of ``previous``."""
        try:
            if previous is not None and previous.file_digest == file_digest(file):
                outcome.unchanged.append(previous)
                return
            parsed = parse_file(file, self.max_file_bytes)
        except OSError as exc:  # gone (or unreadable) since the folder was listed
            outcome.failed.append(FileProblem(path=str(file), line=0, column=0,
                                              reason=f"cannot read: {exc.strerror or exc}"))
            return
        except CatalogParseError as exc:
            outcome.failed.append(FileProblem(path=exc.path, line=exc.line, column=exc.column,
                                              reason=exc.reason))
            return
        identity = identify(parsed.triples, _relative_name(file, root))
        outcome.warnings.extend(f"{file}: {w}" for w in identity.warnings)
        outcome.warnings.extend(
            f"{file}: {count} IRI(s) contain the unexpanded template placeholder "
            f"{placeholder}: this looks like a source template, not a release; substitute "
            "it before loading" for placeholder, count in
            template_placeholders(parsed.triples).items())
        version = OntologyVersion(
            ontology_iri=identity.iri, iri_derived=identity.derived, version=identity.version,
            content_hash=parsed.content_hash, graph=graph_name(parsed.content_hash),
            source=str(file), file_digest=parsed.file_digest,
            rdf_format=parsed.rdf_format.name, triple_count=len(parsed.triples),
            loaded_at=datetime.now(UTC).replace(microsecond=0), status=VersionStatus.CURRENT,
        )
        if previous is not None and previous.content_hash == version.content_hash:
            # Same content, new bytes (reformatted, or a file saved from an applied
            # version): no new version, and it stays where it is stored (a layer too).
            self._record(version.model_copy(update={
                "loaded_at": previous.loaded_at, "graph": previous.graph,
                "added_graph": previous.added_graph}), supersede=False)
            outcome.unchanged.append(previous)
            return
        if version.graph not in stored_graphs:
            self.store.replace_graph(version.graph, parsed.triples)
            stored_graphs.add(version.graph)
        self._record(version, supersede=True)
        (outcome.updated if previous is not None else outcome.added).append(version)

    def versions(self, include_inactive: bool = False, *, own_only: bool = False
                 ) -> list[OntologyVersion]:
        """Current versions (or every version) of every layer, by ontology IRI then source.

        A version that two layers both list (same source and content) appears once.
        """
        variables = " ".join(f"?{name}" for name in _FIELDS)
        patterns = " ".join(
            f"OPTIONAL {{ ?v {sparql.iri(OR + prop)} ?{name} }}" if name in _OPTIONAL
            else f"?v {sparql.iri(OR + prop)} ?{name} ."
            for name, prop in _FIELDS.items()
        )
        graphs = [self.metadata_graph] if own_only else self.layer_graphs
        found: dict[tuple[str, str], OntologyVersion] = {}
        for graph in graphs:
            rows = self.store.select(
                f"SELECT {variables} WHERE {{ GRAPH {sparql.iri(graph)} "
                f"{{ ?v a {sparql.iri(OR + 'OntologyVersion')} . {patterns} }} }}"
            )
            for row in rows:
                version = OntologyVersion.model_validate({name: row[name].value for name in row})
                found.setdefault((version.source, version.content_hash), version)
        return self._sorted(found.values(), include_inactive)

    @staticmethod
    def _sorted(versions: Iterable[OntologyVersion], include_inactive: bool
                ) -> list[OntologyVersion]:
        found = list(versions)
        if not include_inactive:
            found = [v for v in found if v.status is VersionStatus.CURRENT]
        return sorted(found, key=lambda v: (v.ontology_iri, v.source, v.loaded_at))

    def last_load(self, layer: str | None = None) -> LoadState | None:
        """The last load's state of the tenant's own catalog (or of ``layer``'s graph)."""
        rows = self.store.select(
            f"SELECT ?p ?o WHERE {{ GRAPH {sparql.iri(layer or self.metadata_graph)} "
            f"{{ {sparql.iri(LAST_LOAD_STATE)} ?p ?o }} }}"
        )
        if not rows:
            return None
        values = {row["p"].value.removeprefix(OR): row["o"].value for row in rows}
        return LoadState(root=values["root"], partial=values["partial"],
                         failed_files=values["failedFiles"], at=values["at"])

    def switch_to(self, version: OntologyVersion) -> None:
        """Make ``version`` its source's current version in one update (apply, rollback).

        Its graph must already be written; the other versions of the source
        become superseded and stay for rollback.
        """
        self._record(version.model_copy(update={"status": VersionStatus.CURRENT}),
                     supersede=True)
        self._record_state(f"switch:{version.source}")

    def layer_loads(self) -> list[LoadState | None]:
        """The last load of every layer: any change to one of them changes this list."""
        return [self.last_load(graph) for graph in self.layer_graphs]

    def graph_triples(self, version: OntologyVersion) -> list[ox.Triple]:
        """The triples of one version: its graph's, then (a layer) those it adds."""
        return [t for graph in version.named_graphs for t in self.store.graph_triples(graph)]

    def graph_statements(self, version: OntologyVersion) -> list[Statement]:
        """``graph_triples`` as statements (``TripleStore.graph_statements``)."""
        return [t for graph in version.named_graphs
                for t in self.store.graph_statements(graph)]

    def version_of(self, content_hash: str) -> OntologyVersion | None:
        """A version record with this content hash (current first), from any layer."""
        found = [v for v in self.versions(include_inactive=True)
                 if v.content_hash == content_hash]
        found.sort(key=lambda v: v.status is not VersionStatus.CURRENT)
        return found[0] if found else None

    def _record(self, version: OntologyVersion, *, supersede: bool) -> None:
        node = _version_node(version.source, version.content_hash)
        operations = []
        if supersede:
            status = sparql.iri(OR + "status")
            operations.append(
                f"DELETE {{ GRAPH {sparql.iri(self.metadata_graph)} {{ ?old {status} ?s }} }} "
                f"INSERT {{ GRAPH {sparql.iri(self.metadata_graph)} {{ ?old {status} "
                f"{sparql.literal(VersionStatus.SUPERSEDED)} }} }} "
                f"WHERE {{ GRAPH {sparql.iri(self.metadata_graph)} {{ ?old "
                f"{sparql.iri(OR + 'source')} {sparql.literal(version.source)} ; "
                f"{status} {sparql.literal(VersionStatus.CURRENT)} ; {status} ?s }} }}"
            )
        operations.append(sparql.delete_subjects_in_graph(self.metadata_graph, [node]))
        operations.append(sparql.insert_data(self.metadata_graph, _version_triples(node, version)))
        # One request, so the store applies the switch as one transaction.
        self.store.update(" ;\n".join(operations))

    def _retire_missing(
        self, root: Path, present: set[str], known: dict[str, OntologyVersion]
    ) -> list[OntologyVersion]:
        prefix = str(root) + os.sep
        gone = [v for source, v in known.items()
                if source.startswith(prefix) and source not in present]
        retired = [v.model_copy(update={"status": VersionStatus.REMOVED}) for v in gone]
        for version in retired:
            self._record(version, supersede=False)
        return retired

    def _shared_iri_warnings(self) -> list[str]:
        counts = Counter(v.ontology_iri for v in self.versions())
        return [
            f"{iri} is declared by {n} files; each file stays its own catalog entry"
            for iri, n in sorted(counts.items()) if n > 1
        ]

    def _record_state(self, root: str, *, partial: bool = False, failed_files: int = 0) -> None:
        """Record the last change (a load or a switch): readers re-list versions on it."""
        node = ox.NamedNode(LAST_LOAD_STATE)
        values = {
            "root": ox.Literal(root),
            "partial": ox.Literal("true" if partial else "false",
                                  datatype=ox.NamedNode(XSD + "boolean")),
            "failedFiles": ox.Literal(str(failed_files),
                                      datatype=ox.NamedNode(XSD + "integer")),
            "at": ox.Literal(datetime.now(UTC).replace(microsecond=0).isoformat(),
                             datatype=ox.NamedNode(XSD + "dateTime")),
        }
        triples = [ox.Triple(node, ox.NamedNode(OR + k), v) for k, v in values.items()]
        self.store.update(
            sparql.delete_subjects_in_graph(self.metadata_graph, [LAST_LOAD_STATE]) + " ;\n"
            + sparql.insert_data(self.metadata_graph, triples)
        )


def _relative_name(file: Path, root: Path) -> str:
    base = file.relative_to(root) if root.is_dir() else Path(file.name)
    return base.with_suffix("").as_posix()


def _version_node(source: str, content_hash: str) -> str:
    source_key = hashlib.sha256(source.encode()).hexdigest()[:16]
    return version_node(source_key, content_hash)


def _version_triples(node: str, version: OntologyVersion) -> list[ox.Triple]:
    subject = ox.NamedNode(node)
    xsd = {int: "integer", bool: "boolean", datetime: "dateTime"}
    triples = [ox.Triple(subject, RDF_TYPE_NODE,
                         ox.NamedNode(OR + "OntologyVersion"))]
    for name, prop in _FIELDS.items():
        value = getattr(version, name)
        if value is None:
            continue
        kind = xsd.get(type(value))
        if kind is None:
            obj = ox.Literal(str(value))
        else:
            text = value.isoformat() if isinstance(value, datetime) else str(value).lower()
            obj = ox.Literal(text, datatype=ox.NamedNode(XSD + kind))
        triples.append(ox.Triple(subject, ox.NamedNode(OR + prop), obj))
    return triples


@dataclass
class _LoadOutcome:
    """What one load did with each file, gathered for its report."""

    added: list[OntologyVersion] = field(default_factory=list)
    updated: list[OntologyVersion] = field(default_factory=list)
    unchanged: list[OntologyVersion] = field(default_factory=list)
    failed: list[FileProblem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
