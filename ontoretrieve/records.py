"""Frozen records passed between stages and returned to callers.

Pydantic models, so every surface (Python, CLI ``--json``, HTTP) serializes
them the same way.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict
from typing_extensions import TypedDict  # pydantic needs it below Python 3.12

__all__ = [
    "AtomPayload",
    "CatalogAccessMode",
    "FileProblem",
    "LaneRank",
    "LoadReport",
    "LoadState",
    "OntologyVersion",
    "SeedEvidence",
    "SeedFunnel",
    "SeedOrigin",
    "SelectionCounts",
    "SyncReport",
    "TermStep",
    "VersionStatus",
]


class AtomPayload(TypedDict, total=False):
    """What the vector index stores with each atom's point.

    Written by ``index.payload.to_payload`` only; read as typed keys everywhere
    (``index.payload.evidence_from_payload`` turns one into seed evidence). Not
    total: a store asked for some fields returns only those.
    """

    atom_id: str
    iri: str
    ontology_iri: str
    ontology_version: str
    """The ontology's version IRI or info; "" when it declares none."""
    ontology_hash: str
    text_hash: str
    role: str
    """``index.atomize.Role``: "resource" or "predicate"."""
    is_header: bool
    """The ontology's own header (owl:Ontology): never a seed."""
    core_text: str
    neighborhood_text: str
    sparse_text: str
    labels: list[str]
    symbols: list[str]
    triggers: list[str]
    lexemes: list[str]
    """Case-folded labels and symbols: the keys of exact lexical matches."""


class SeedOrigin(StrEnum):
    """The rule that made a term a seed."""

    RETRIEVED = "retrieved"
    """The query path: lanes, fusion and the seed cut."""
    TRIGGER = "lexical_trigger"
    """An exact-case trigger (a symbol) in the text."""
    UNIT_SIGNAL = "unit_signal"
    """A unit token after a number ("5 mV")."""
    LEXICAL_MATCH = "lexical_match"
    """A folded label phrase (``lexical`` mode only)."""


class TermStep(StrEnum):
    """The step that put a term into a context (``TermEvidence.step``)."""

    RETRIEVED = "retrieved"
    TRIGGER = "lexical_trigger"
    UNIT_SIGNAL = "unit_signal"
    LEXICAL_MATCH = "lexical_match"
    TYPE_PROMOTION = "type_promotion"
    """The class of an individual seed."""
    SCHEMA_CLOSURE = "schema_closure"
    """An ancestor of a seed, or a property whose domain or range it is."""
    SEED = "seed"
    """A property seed's own statements."""
    SHELL = "shell"
    EXPANSION = "expansion"
    LINK = "link"
    STUB = "stub"
    REPAIR = "repair"
    SMALL_MODULE = "small_module"
    AUTO = "auto"
    VECTOR = "vector"
    FULL = "full"
    ONTOLOGIES = "ontologies"
    LEXICAL = "lexical"
    """A whole-catalog mode took the term with the rest of its ontology."""
    ATOMS_FALLBACK = "atoms_fallback"
    """The store was unreachable: the term's labels and symbols from the index."""


class CatalogAccessMode(StrEnum):
    """How a retrieval read the catalog: down the degradation chain when the store fails."""

    SPARQL = "sparql"
    FULL_FETCH_FALLBACK = "full_fetch_fallback"
    ATOMS_FALLBACK = "atoms_fallback"


class LaneRank(TypedDict):
    """Where one vector lane ranked a seed in one query window."""

    window: int
    lane: str
    rank: int
    raw_score: float


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True)


class VersionStatus(StrEnum):
    CURRENT = "current"
    SUPERSEDED = "superseded"
    """A newer version was loaded from the same source; kept for rollback."""
    REMOVED = "removed"
    """Its source file is gone from the catalog folder; kept for rollback."""


class OntologyVersion(_Record):
    """One version of one catalog ontology: a named graph and its identity."""

    ontology_iri: str
    """The owl:Ontology subject, else an IRI derived from the file name."""
    iri_derived: bool
    version: str | None = None
    """owl:versionIRI, else owl:versionInfo, else none."""
    content_hash: str
    """Independent of serialization, triple order and blank-node labels."""
    graph: str
    """The named graph holding the triples (shared by identical contents); for a version
    stored as a layer (``added_graph``), the graph of the version it adds to."""
    source: str
    """Absolute path of the file it was loaded from."""
    file_digest: str
    """SHA-256 of the file's bytes: an unchanged file is not parsed again."""
    rdf_format: str
    triple_count: int
    loaded_at: datetime
    status: VersionStatus
    origin: str = "file"
    """``file`` (loaded from its source) or ``proposal`` (an applied update)."""
    supersedes: str | None = None
    """For an applied update: the content hash it replaced (what rollback restores)."""
    added_graph: str | None = None
    """For a version an apply stored as a layer: the graph of the statements it adds to
    ``graph`` (an update that only adds statements writes those, not a whole copy)."""

    @property
    def named_graphs(self) -> list[str]:
        """The named graphs whose union is the version's triples."""
        return [self.graph] if self.added_graph is None else [self.graph, self.added_graph]


class FileProblem(_Record):
    """A catalog file that did not load, and where it went wrong."""

    path: str
    line: int
    column: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.reason}"


class LoadReport(_Record):
    """What one ``catalog load`` did."""

    root: str
    added: list[OntologyVersion]
    """Sources seen for the first time."""
    updated: list[OntologyVersion]
    """Known sources whose content changed: a new version each."""
    unchanged: list[OntologyVersion]
    removed: list[OntologyVersion]
    """Earlier versions whose source file is gone from the loaded folder."""
    failed: list[FileProblem]
    skipped: list[str]
    """Files under the folder that are not in an RDF format ontoretrieve reads."""
    warnings: list[str]
    partial: bool
    """True when a file failed: later steps must not take absence as deletion."""
    seconds: float

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)


class LoadState(_Record):
    """What the last ``catalog load`` left: later steps read ``partial``."""

    root: str
    partial: bool
    failed_files: int
    at: datetime


class SelectionCounts(_Record):
    """What the seed cut did (``query.selection``): from fused candidates to kept seeds."""

    fused_candidates: int
    threshold_rejected: int
    after_merge: int
    after_ratio: int
    cap: int | None
    after_cap: int
    reserved_by_role: int
    reserved_by_ontology: int
    after_evidence: int | None = None
    """Candidates the evidence cut kept (None: the reference cut, which has none)."""
    kept_by: dict[str, int] = {}
    """What kept them: a mention, lanes agreeing, a score near the best."""


class SeedFunnel(SelectionCounts):
    """What each step from windows to seeds did for one unit."""

    windows_built: int
    windows: int
    window_bound: str
    queries_truncated: int
    query_sequence_limit: int | None
    hits_per_lane: dict[str, int]
    added_by_triggers: int
    raised_by_triggers: int
    case_demoted: int
    case_dropped: int
    added_by_unit_signals: int
    final_seeds: int


class SeedEvidence(_Record):
    """Why one seed is here: its lanes, windows and ranks, or the rule that added it."""

    iri: str
    score: float
    origin: SeedOrigin
    ontology_iri: str
    ontology_version: str | None
    ontology_hash: str
    role: str
    fused_score: float | None
    windows: list[int]
    lanes: list[LaneRank]
    """One entry per (window, lane)."""
    mentions: list[dict[str, object]] = []
    """The spans of the text that named the term: span (character offsets), text,
    form, kind, exact_case, shared_by (terms sharing the form), contained, strength."""
    notes: list[str]
    evidence_tier: int = 1
    """0: a strong mention names it; 1: lanes agree or an exact lexical rule matched;
    2: its score alone. A context budget is spent on lower tiers first."""
    fit: float | None = None
    """How well the term fits the text: the best cosine between a window's query vector
    and its core vector, which orders the seeds within a tier (``seeds.fit_order``;
    None when not computed: the order is by score)."""
    confidence: float | None = None
    """How likely the term is one the text is about, from all of its evidence together
    (``query/confidence.py``), which orders the seeds within a tier
    (``seeds.confidence_order``; None when not computed)."""


class SyncReport(BaseModel):
    """What one index sync (``ontoretrieve index``, a catalog load, an apply) did.

    Not frozen: the sync adds the cache count once the embedder is known."""

    location: str
    rebuilt: bool
    repaired: bool = False
    """The index was missing or damaged and was rebuilt from the catalog."""
    ontologies_added: int
    ontologies_removed: int
    ontologies_unchanged: int
    atoms_total: int
    atoms_embedded: int
    atoms_reused: int
    atoms_deleted: int
    pruning: str
    """``done``, ``nothing to prune`` or why it was skipped."""
    seconds: float
    embed_seconds: float
    texts_from_cache: int = 0
    """Texts whose vectors came from the document cache instead of the model."""
    texts_encoded: int = 0
    """Dense texts the model encoded in this sync (the rest came from stored points or
    the document cache): what a base shared by several tenants costs each of them."""
    versions_layered: int = 0
    """Added versions written as a layer over the version they replace (only their
    changed atoms written); the others were written whole."""
    versions_revived: int = 0
    """Added versions whose points were still kept as a layer (a rollback): no write."""
