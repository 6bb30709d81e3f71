"""The per-stage groups of ``Settings``; each stage receives only its own group.

Every field that the reference system also has declares its reference name
(``json_schema_extra={"reference": ...}``) and the reference default;
``settings.reference_names()`` reads the names from here, so each is written
once.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator
from pydantic_settings import NoDecode

from ontoretrieve.rdf.vocab import expand_curie

__all__ = [
    "CatalogSettings",
    "ContextSettings",
    "CriticSettings",
    "DedupMode",
    "EmbedSettings",
    "ExpandSettings",
    "FusionSettings",
    "IndexSettings",
    "MentionSettings",
    "MergeMode",
    "ReachedOrder",
    "SeedCut",
    "SeedOrder",
    "SeedSettings",
    "ServerSettings",
    "StoreBackend",
    "StoreSettings",
    "SymbolCasePolicy",
    "TriggerFusion",
    "TriggerSettings",
    "VectorBackend",
    "VectorIndexSettings",
    "WindowSettings",
]


def _split_list(value: Any) -> Any:
    """Accept a JSON list or a comma-separated string, as the reference does."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [part.strip() for part in text.split(",") if part.strip()]
    return value


def _split_iris(value: Any) -> Any:
    value = _split_list(value)
    if isinstance(value, list | tuple):
        return tuple(expand_curie(str(item)) for item in value)
    return value


IriList = Annotated[tuple[str, ...], NoDecode, BeforeValidator(_split_iris)]
StrList = Annotated[tuple[str, ...], NoDecode, BeforeValidator(_split_list)]

LABEL_PREDICATES = ("rdfs:label", "skos:prefLabel", "dcterms:title", "skos:altLabel",
                    "dcterms:alternative")
SYMBOL_PREDICATES = ("skos:notation", "qudt:symbol", "qudt:ucumCode")


def ref(name: str, default: Any, **constraints: Any) -> Any:
    """A field that carries the reference system's setting name."""
    return Field(default, json_schema_extra={"reference": name}, **constraints)


class TokenCounterKind(StrEnum):
    """Which counter a budget is measured in, when the caller passes none."""

    ESTIMATE = "estimate"
    """The fast estimate of a large language model's BPE tokenizer (``context.tokens``)."""
    ENCODER = "encoder"
    """The dense encoder's own tokenizer (WordPiece for the packaged model): exact for
    the encoder, about 1.1-1.2x GPT-4's count on Turtle."""


MAX_INT_SETTING = 2**31 - 1
"""The largest whole number any setting takes: counts and limits reach the stores and
NumPy as 32-bit values (``fusion.top_k = 1e23`` overflowed deep in a query)."""


class _Group(BaseModel):
    # allow_inf_nan: an infinite weight or rank constant validated, then silently
    # zeroed every score; no setting means anything by inf or nan.
    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True,
                              allow_inf_nan=False)

    @field_validator("*", mode="after")
    @classmethod
    def _bounded(cls, value: object) -> object:
        if isinstance(value, int) and not isinstance(value, bool) and (
                abs(value) > MAX_INT_SETTING):
            raise ValueError(f"{value} is too large (at most {MAX_INT_SETTING:,})")
        return value


class StoreBackend(StrEnum):
    OXIGRAPH = "oxigraph"
    SPARQL = "sparql"


class VectorBackend(StrEnum):
    EDGE = "edge"
    QDRANT = "qdrant"


class DedupMode(StrEnum):
    IRI = "iri"
    ATOM_ID = "atom_id"


class MergeMode(StrEnum):
    MAX_SCORE = "max_score"
    SUM_SCORE = "sum_score"


class DeprecatedSeeds(StrEnum):
    REPLACE = "replace"
    """A deprecated (obsolete) seed gives way to the term that replaces it, else goes."""
    DROP = "drop"
    """Deprecated seeds are left out."""
    KEEP = "keep"
    """Deprecated seeds stay (the reference)."""


class SenseForms(StrEnum):
    """How a span naming several terms weighs the kind of form naming each
    (``mentions.sense_forms``)."""

    FIT = "fit"
    """By fit alone: the terms nearest the passage keep the span (before session 26)."""
    NAMES_FIRST = "names_first"
    """The terms the span names by a name first (not by a related, broad or narrow
    synonym), then by fit."""
    NAMES_ONLY = "names_only"
    """As ``names_first``, and a related, broad or narrow synonym is outranked whenever
    the span names some term by a name."""


class ConfidenceModelKind(StrEnum):
    """Which model weighs a seed's evidence into its confidence (``query/confidence.py``)."""

    TREES = "trees"
    """Gradient-boosted trees over the signals together (``query/confidence_trees.py``)."""
    LOGISTIC = "logistic"
    """One fitted weight a signal (``query/confidence.py``, ``WEIGHTS``)."""


class SeedCut(StrEnum):
    CAP = "cap"
    """The reference: every candidate above the floor, up to the cap."""
    EVIDENCE = "evidence"
    """Only candidates the evidence supports (a mention, lanes agreeing, a score near
    the unit's best), up to the cap."""


class ReachedOrder(StrEnum):
    RANK = "rank"
    """Terms the query's lanes ranked below the seed cut first, best first; then the
    others by the best seed they link to."""
    LINK = "link"
    """By the best seed each links to, in pool order within."""


class TriggerFusion(StrEnum):
    MAX_MERGE = "max_merge"
    """The reference: a kept term is raised to the trigger score."""
    APPEND = "append"
    """Kept terms are left as they are; only new terms join."""
    ADD = "add"
    """A kept term gains the trigger score on top of its fused score (at most 1), so
    lexical and semantic evidence together outrank either alone."""


class SymbolCasePolicy(StrEnum):
    DEMOTE = "demote"
    DROP = "drop"
    KEEP = "keep"


class SeedOrder(StrEnum):
    SCORE = "score"
    ONTOLOGY_ROUND_ROBIN = "ontology_round_robin"


class CatalogSettings(_Group):
    """Where the catalog files are and which store keeps them."""

    path: str = "catalog"
    """File or folder that `ontoretrieve index` and `retrieve` load when not told otherwise."""
    max_file_mb: int = Field(64, ge=1)
    """The largest RDF file a load reads, in MiB (GO, 31 MB of Turtle, is the largest of
    the bench catalog). A file is parsed in memory, at about 20 times its size, so a
    bigger one is refused by name; raise this for bigger ontologies with the memory."""


class StoreSettings(_Group):
    """The triple store: embedded Oxigraph (default) or a SPARQL 1.1 endpoint."""

    backend: StoreBackend = StoreBackend.OXIGRAPH
    query_url: str | None = None
    """SPARQL query endpoint, e.g. http://127.0.0.1:7878/query."""
    update_url: str | None = None
    """SPARQL update endpoint; defaults to query_url with /update."""
    graph_store_url: str | None = None
    """Graph Store Protocol endpoint; defaults to query_url with /store."""
    timeout_seconds: float = Field(30.0, gt=0)

    @model_validator(mode="after")
    def _endpoint_needed(self) -> Self:
        if self.backend is StoreBackend.SPARQL and not self.query_url:
            raise ValueError("store.backend=sparql needs store.query_url")
        return self


class IndexSettings(_Group):
    """Atomization: which terms become atoms and what text they carry."""

    index_undescribed_iris: bool = ref("VECTOR_STORE_INDEX_UNDESCRIBED_IRIS", False)
    embed_standard_vocab_iris: bool = ref("VECTOR_STORE_EMBED_STANDARD_VOCAB_IRIS", False)
    extra_excluded_namespace_prefixes: StrList = ref(
        "VECTOR_STORE_EXTRA_EXCLUDED_NAMESPACE_PREFIXES", ())
    label_predicates: IriList = ref("VECTOR_STORE_LABEL_PREDICATES", LABEL_PREDICATES)
    symbol_predicates: IriList = ref("VECTOR_STORE_SYMBOL_PREDICATES", SYMBOL_PREDICATES)
    minimal_label_limit: int = ref("VECTOR_STORE_MINIMAL_LABEL_LIMIT", 5, ge=1)
    obo_synonyms: bool = True
    """oboInOwl synonyms count as labels and IAO_0000115 as a description."""
    dedup_mode: DedupMode = ref("VECTOR_STORE_DEDUP_MODE", DedupMode.IRI)
    dedup_include_version: bool = ref("VECTOR_STORE_DEDUP_INCLUDE_VERSION", True)
    dedup_include_hash: bool = ref("VECTOR_STORE_DEDUP_INCLUDE_HASH", True)


class EmbedSettings(_Group):
    """Dense and sparse embedding models."""

    dense_model: str = "sentence-transformers/all-MiniLM-L6-v2"
    dense_model_path: str | None = None
    """A local model folder; unset uses the packaged offline model."""
    sparse_model: str = "Qdrant/bm25"
    query_prefix: str = ""
    document_prefix: str = ""
    batch_size: int = ref("VECTOR_STORE_EMBEDDING_BATCH_SIZE", 64, ge=1)
    batch_tokens: int = Field(1024, ge=1)
    """Dense batches hold at most this many tokens (texts times the longest's tokens,
    padding included); ``batch_size`` stays the cap on texts. Bounds the encoder's
    working memory: ONNX Runtime keeps its largest batch's arena for the session."""
    reindex_concurrency: int = ref("VECTOR_STORE_REINDEX_CONCURRENCY", 2, ge=1)
    threads: int | None = Field(None, ge=1, le=1024)
    """Threads of the dense encoder (ONNX Runtime); unset: one per core. Vectors do not
    depend on it. ``annotate --workers N`` gives each worker its share of the cores."""
    document_cache: bool = True
    """Keep document vectors by model and text (``data_dir/embeddings``), so a rebuild
    embeds only the texts it has not seen."""


class VectorIndexSettings(_Group):
    """The vector index: Qdrant Edge in-process (default) or a Qdrant server."""

    backend: VectorBackend = VectorBackend.EDGE
    url: str | None = None
    """Qdrant server URL; ':memory:' or unset (on disk under the data directory)
    for qdrant-client's local mode."""
    api_key: str | None = None
    distance: str = ref("QDRANT_DISTANCE", "Cosine", pattern="^(Cosine|Dot|Euclid)$")
    search_threads: int | None = Field(None, ge=1, le=1024)
    """Threads Qdrant Edge searches a shard's segments with; unset: Edge's own choice
    (by cores). Hits do not depend on it. ``annotate --workers N`` gives each worker
    its share of the cores."""


class TriggerSettings(_Group):
    """Lexical triggers: case-sensitive literal matches on symbols and codes."""

    enabled: bool = ref("VECTOR_STORE_LEXICAL_TRIGGER_ENABLED", True)
    predicates: IriList = ref("VECTOR_STORE_LEXICAL_TRIGGER_PREDICATES", SYMBOL_PREDICATES)
    heuristic_enabled: bool = ref("VECTOR_STORE_LEXICAL_TRIGGER_HEURISTIC_ENABLED", True)
    min_len: int = ref("VECTOR_STORE_LEXICAL_TRIGGER_MIN_LEN", 2, ge=1)
    max_len: int = ref("VECTOR_STORE_LEXICAL_TRIGGER_MAX_LEN", 24, ge=1)
    heuristic_max_per_entity: int = ref(
        "VECTOR_STORE_LEXICAL_TRIGGER_HEURISTIC_MAX_PER_ENTITY", 2, ge=0)
    score: float = ref("VECTOR_STORE_LEXICAL_TRIGGER_SCORE", 0.35, ge=0, le=1)
    max_atoms: int = ref("VECTOR_STORE_LEXICAL_TRIGGER_MAX_ATOMS", 16, ge=0)
    fusion: TriggerFusion = ref("VECTOR_STORE_LEXICAL_TRIGGER_FUSION", TriggerFusion.ADD)
    unit_labels_any_case: bool = True
    """A unit signal naming a *label* up to case is exact ("4 days" -> "Day"); the case
    rules are for symbols ("mV" is not "MV"). The reference demotes such label matches."""
    skip_stopwords: bool = True
    """Function words ("in", "at", "is") never fire a trigger (the reference lets "in"
    seed the inch); after a number ("5 in") the unit signals still read them."""
    unit_letters_only: bool = True
    """A one-letter unit signal needs a letter that may be a unit there: not one glued
    to its number as a capital ("Figure 10A", "3D"), a panel of a figure, table or
    equation reference ("Figure 8b") or a citation's year suffix ("2006a"), as the
    mention lane reads them. The reference reads every token after a number."""

    @model_validator(mode="after")
    def _lengths(self) -> Self:
        if self.min_len > self.max_len:
            raise ValueError(f"triggers.min_len ({self.min_len}) is above "
                             f"triggers.max_len ({self.max_len})")
        return self


class WindowSettings(_Group):
    """Query windows; a window is bounded by sentences, characters or tokens."""

    proposition_retrieval_enabled: bool = ref(
        "VECTOR_STORE_PROPOSITION_RETRIEVAL_ENABLED", True)
    window_sentences: int = ref("VECTOR_STORE_PROPOSITION_WINDOW_SENTENCES", 2, ge=1)
    window_stride: int | None = ref("VECTOR_STORE_PROPOSITION_WINDOW_STRIDE", None, ge=1)
    window_max_chars: int | None = ref("VECTOR_STORE_PROPOSITION_WINDOW_MAX_CHARS", None, ge=1)
    window_max_tokens: int | None = ref(
        "VECTOR_STORE_PROPOSITION_WINDOW_MAX_TOKENS", None, ge=1)
    window_overlap: float = ref("VECTOR_STORE_PROPOSITION_WINDOW_OVERLAP", 0.0, ge=0, lt=1)
    max_windows: int = ref("VECTOR_STORE_PROPOSITION_MAX_WINDOWS", 16, ge=1)
    abbreviation_aware: bool = ref("VECTOR_STORE_PROPOSITION_ABBREVIATION_AWARE", False)
    measurement_aware: bool = ref("VECTOR_STORE_PROPOSITION_MEASUREMENT_AWARE", False)
    mend_page_text: bool = True
    """The windows' texts, which the encoder and the BM25 query read, as text copied out
    of a PDF should read: a word a line break splits with a hyphen ("mito-\\nchondrial")
    joined, and no window cut inside it (a compound's own hyphen stays), typographic
    ligatures ("ﬁ", "ﬄ") spelled out, soft hyphens and zero-width characters dropped
    (``index/page_text.py``). The mention lane reads them so in any case. The
    reference reads the window texts as they stand."""

    @model_validator(mode="after")
    def _one_bound(self) -> Self:
        if self.window_max_chars is not None and self.window_max_tokens is not None:
            raise ValueError(
                "a window is bounded by exactly one of windows.window_max_chars and "
                "windows.window_max_tokens; set only one")
        return self


class FusionSettings(_Group):
    """Lane depths and weighted reciprocal rank fusion."""

    core_weight: float = ref("VECTOR_STORE_FUSION_CORE_WEIGHT", 0.7, ge=0)
    neighborhood_weight: float = ref("VECTOR_STORE_FUSION_NEIGHBORHOOD_WEIGHT", 0.15, ge=0)
    bm25_weight: float = ref("VECTOR_STORE_FUSION_BM25_WEIGHT", 0.8, ge=0)
    rank_constant: float = ref("VECTOR_STORE_FUSION_RANK_CONSTANT", 0.0, ge=0)
    top_k: int = ref("VECTOR_STORE_TOP_K", 40, ge=1)
    bm25_top_k: int | None = ref("VECTOR_STORE_BM25_TOP_K", None, ge=1)
    dedup_query_hits_by_iri: bool = ref("VECTOR_STORE_DEDUP_QUERY_HITS_BY_IRI", True)
    mention_weight: float = Field(1.6, ge=0)
    """The mention lane's weight (0: the lane is not searched, as in the reference)."""
    mention_top_k: int = Field(40, ge=1)
    """Terms the mention lane ranks per window."""
    bm25_query_numbers: bool = False
    """Keep number-only tokens in the BM25 query (the reference does: "15" of "4-15"
    then matches identifiers like CAL_15DEG_C)."""

    @model_validator(mode="after")
    def _some_weight(self) -> Self:
        if (self.core_weight + self.neighborhood_weight + self.bm25_weight
                + self.mention_weight) <= 0:
            raise ValueError("fusion.core_weight, fusion.neighborhood_weight, "
                             "fusion.bm25_weight and fusion.mention_weight are all 0; at "
                             "least one must be positive")
        return self


class SeedSettings(_Group):
    """From fused hits to seeds: floor, merge, cap, fill order, case checks."""

    min_merged_max_score: float = ref("ONTOLOGY_PATCH_MIN_MERGED_MAX_SCORE", 0.18, ge=0, le=1)
    cross_query_merge_mode: MergeMode = ref(
        "ONTOLOGY_PATCH_CROSS_QUERY_MERGE_MODE", MergeMode.MAX_SCORE)
    merged_score_ratio: float = ref("ONTOLOGY_PATCH_MERGED_SCORE_RATIO", 0.0, ge=0, le=1)
    max_atoms: int = ref("ONTOLOGY_PATCH_MAX_ATOMS", 96, ge=0)
    max_atoms_base: int = ref("ONTOLOGY_PATCH_MAX_ATOMS_BASE", 96, ge=0)
    seeds_per_window: int = ref("ONTOLOGY_PATCH_SEEDS_PER_WINDOW", 4, ge=0)
    per_ontology_atom_floor: int = ref("ONTOLOGY_PATCH_PER_ONTOLOGY_ATOM_FLOOR", 2, ge=0)
    per_role_atom_floor: int = ref("ONTOLOGY_PATCH_PER_ROLE_ATOM_FLOOR", 12, ge=0)
    per_ontology_seed_quota: int = ref("ONTOLOGY_PATCH_PER_ONTOLOGY_SEED_QUOTA", 0, ge=0)
    mmr_lambda: float = ref("ONTOLOGY_PATCH_MMR_LAMBDA", 1.0, ge=0, le=1)
    symbol_case_mismatch_policy: SymbolCasePolicy = ref(
        "VECTOR_STORE_SYMBOL_CASE_MISMATCH_POLICY", SymbolCasePolicy.DEMOTE)
    symbol_case_mismatch_demote_factor: float = ref(
        "VECTOR_STORE_SYMBOL_CASE_MISMATCH_DEMOTE_FACTOR", 0.5, ge=0, le=1)
    query_unit_signals_enabled: bool = ref("VECTOR_STORE_QUERY_UNIT_SIGNALS_ENABLED", True)
    cut: SeedCut = SeedCut.EVIDENCE
    """``evidence``: keep what the evidence supports; ``cap``: the reference cut."""
    evidence_first: bool = True
    """Evidence cut: seeds are ordered by the kind of evidence that kept them (a mention,
    then lanes agreeing, then the score alone), within each kind by topic fit
    (``fit_order``) or by score, so the top of the list is what the text names."""
    fit_order: bool = True
    """With ``evidence_first``: within each kind of evidence, seeds by how well their core
    vector fits the text (the best cosine with a window's query vector), not by score;
    seeds named right after a number keep their places (a unit's core text rarely
    resembles its sentence)."""
    fit_order_strength: float = Field(0.5, ge=0, le=4)
    """With ``fit_order``: each seed's fit is weighed by the strength of its strongest
    mention to this power (how surely the text names the term: kind of form, terms
    sharing it, nesting), so of two terms that fit alike the one named by its label
    comes before the one a related synonym names. 0: fit alone."""
    confidence_order: bool = True
    """With ``evidence_first``: within each kind of evidence, seeds by their confidence,
    a model (``confidence_model``) over all of their evidence together (fit, the strongest mention's
    strength, kind, case and derivation, spans, windows, lanes, a unit after a number,
    seeds of the same ontology; ``query/confidence.py``); ``fit_order``'s order only
    breaks ties. Unscoped queries only: a scoped one keeps the score order. False:
    ``fit_order``'s order."""
    confidence_model: ConfidenceModelKind = ConfidenceModelKind.TREES
    """With ``confidence_order``: ``trees``, gradient-boosted trees that weigh each
    signal by the others it comes with; ``logistic``, one weight a signal. Both fitted on
    annotated paragraphs (``benchmarks/fit_seed_confidence.py``)."""
    evidence_ratio: float = Field(0.5, ge=0, le=1)
    """Evidence cut: a fused score at least this share of the best in the same window
    keeps a term."""
    agreement_rank: int = Field(3, ge=0)
    """Evidence cut: two lane families (dense, BM25, mention) ranking a term within this
    rank in one window keep it (0: agreement alone never keeps a term)."""
    mention_min_strength: float = Field(0.15, ge=0)
    """Evidence cut: a mention at least this strong keeps its term on its own."""
    evidence_top_per_window: int = Field(0, ge=0)
    """Evidence cut: the fused top terms of each window kept whatever their evidence."""
    evidence_top_per_unit: int = Field(0, ge=0)
    """Evidence cut: the merged top terms of the unit kept whatever their evidence (a short
    text whose terms no form names still keeps its best dense and BM25 hits)."""
    scoped_top_per_window: int = Field(12, ge=0)
    """Evidence cut, in a query scoped to named ontologies: the fused top terms of each
    window kept whatever their evidence. The caller's scope is itself evidence: a term of
    a 70-term ontology the caller extracts against is far likelier relevant than a term
    of the whole catalog, so weaker support suffices."""
    scoped_kept_per_window: int = Field(40, ge=0)
    """Evidence cut, in a query scoped to named ontologies: the fused top terms of each
    window down to this rank stay seeds on the scope's word alone, beyond
    ``scoped_top_per_window``. Such a seed (no mention, no agreeing lanes, not among the
    window's ``scoped_top_per_window``) carries the note "kept by the query's scope
    alone", and a context budget spends on it as on the candidates just below the cut:
    its name early, its description after the terms the other seeds reach. So the seeds
    list the relations a sentence implies without naming them ("plays for" a
    *currentclub*), at the context's cost of before. 0, or not above
    ``scoped_top_per_window``: none."""
    deprecated: DeprecatedSeeds = DeprecatedSeeds.REPLACE
    """Deprecated (OBO: obsolete) seeds: replaced by their successor when the ontology
    names one, else left out (``replace``); left out (``drop``); or kept (``keep``)."""
    dump_ontology_ranks: bool = ref("ONTOLOGY_PATCH_DUMP_ONTOLOGY_RANKS", False)
    """Accepted so that reference configurations load; ignored (no rank dump is written)."""

    @model_validator(mode="after")
    def _mmr_owns_the_budget(self) -> Self:
        floors = self.per_role_atom_floor or self.per_ontology_atom_floor
        if self.mmr_lambda < 1.0 and floors:
            raise ValueError(
                "seeds.mmr_lambda below 1 chooses the whole seed budget itself; set "
                "seeds.per_role_atom_floor and seeds.per_ontology_atom_floor to 0 to use it")
        return self


class MentionSettings(_Group):
    """The mention lane: spans of the text that name a term's surface form."""

    enabled: bool = True
    """Off: no dictionary is loaded and the lane is empty (the reference)."""
    max_shared: int = Field(0, ge=0)
    """A form shared by more terms than this names none of them (0: no limit; the
    ambiguity weight already discounts such forms)."""
    dense_spans: int = Field(0, ge=0)
    """Span-level dense matching: up to this many content words of the text that no
    form names are embedded and matched against the core lane (0: off)."""
    dense_span_min_similarity: float = Field(0.7, ge=0, le=1)
    """A dense span names a term only at this cosine or above."""
    senses: int = Field(2, ge=0)
    """A span naming several terms ("states", "A", "expression") keeps its full strength
    for the ``senses`` terms whose core vectors are nearest the window around it; the
    others are outranked (0: off, every term keeps it)."""
    fit_floor: float = Field(0.1, ge=0, le=1)
    """Topic fit: a mention whose term's core vector has a cosine below this with the
    window around it is a *misfit* (the word names the term, the passage is about
    something else: "activity" for radioactivity in a text on gene regulation); a term
    named only by misfits is never in the first evidence tier. Spans right after a
    number are exempt. 0: off. The cosine is the packaged model's; another embedding
    model needs its own floor."""
    misfit_weight: float = Field(0.1, ge=0, le=1)
    """The share of its strength a misfit keeps: at 0.1 no misfit keeps its term on its
    own (under the evidence cut's ``seeds.mention_min_strength``), though it still
    fuses with what the other lanes say; 1 keeps the term as strongly named and only
    orders it after the terms that fit."""
    elliptic: bool = True
    """Shortened names name their term, weakly: a word standing for a two-word name owning
    it in its ontology ("expression" for *gene expression*), and a name said without the
    genus its ontology ends many names with ("BMP signaling" for *BMP signaling
    pathway*; "mozzarella" for the Pizza ontology's *MozzarellaTopping*, named by its IRI
    alone). False: only the terms' own forms."""
    dropped_modifiers: bool = True
    """With ``elliptic``, also a name of three words or more said without one of its
    modifiers ("ganglion cells" for *retinal ganglion cell*), where the text says the
    modifier elsewhere ("retina") and no term is named so outright. False: not these."""
    head_nouns: bool = True
    """With ``elliptic``, also a three-word name (relational adjective, noun, its
    ontology's genus) said by its middle noun's plural alone ("cones" for *retinal cone
    cell*), where the text says the adjective elsewhere ("retina"), no other term of the
    ontology leaves that noun and no term of the catalog but a unit is named by it.
    False: not these."""
    pertainyms: bool = True
    """A relational adjective names a term whose whole name is the noun it pertains to
    in WordNet ("cardiac": *heart*, "hepatic": *liver*, "genetic": *gene*), as a
    derived reading (``index/pertainyms.py``). False: spelling rules alone."""
    prefixes: bool = True
    """A prefixed word names what the word it is built on names ("overexpression": *gene
    expression*, "perinuclear": *nucleus*, "intraocular": *eye*), as a derived reading,
    when one prefix of a closed list comes off and leaves a word of everyday English
    (``index/prefixes.py``). False: words are read whole."""
    noun_verbs: Literal["scoped", "always", "never"] = "scoped"
    """A verb names the relations whose IRI begins with the noun made from it, as a
    derived reading: "died" *deathPlace* and *deathDate*, "succeeded" *successor*,
    "located" *location* (WordNet's derivations, ``index/noun_verbs.py``), "led"
    *leaderTitle*. "scoped": only in a query that names its ontologies, whose own
    relations a sentence states this way (Text2KGBench's sentences); across a whole
    catalog everyday verbs would name its metadata properties ("described" a
    *description*, "contains" a *content*: 3,922 such readings in the dev suite's
    unscoped paragraphs, none gold). "always", "never". A one-word agent noun's verb
    ("led" *leader*) is read in every query either way."""
    elliptic_cohesion: Literal["required", "weighed"] = "weighed"
    """An elliptic form in a text that never uses the name's other word ("expression"
    where no word is "gene"): "weighed" keeps it, flagged ``cohesive: false`` in the
    evidence, for the confidence order to weigh; "required" drops it (lexical cohesion
    as a rule, the behaviour before session 23)."""
    sense_forms: SenseForms = SenseForms.NAMES_FIRST
    """Whether sense choice weighs how the span names each term: "names_first" keeps
    the terms a span names by a name (a label, an exact synonym, a symbol, an elliptic
    form...) before those it names by a related, broad or narrow synonym ("eye" names
    the eye, not the eyeball whose related synonym it is); "names_only" also outranks
    every such synonym then; "fit": the cosine alone (before session 26)."""
    senses_after_numbers: bool = False
    """Also pick senses for a span right after a number ("5 A"): off, because the window
    cannot tell a unit from a quantity kind sharing its symbol."""
    triggers_add: bool = False
    """With the lane on, lexical triggers (a symbol or code written with its case) only
    raise the terms already seeded: the lane reads every such form itself and weighs it
    (a code shared by twelve terms, "E2", names each weakly); what triggers added besides
    was 0 gold of 142 seeds on the dev sample. True: they also add the terms they name, as
    without the lane (the reference)."""
    unit_signals_add: bool = False
    """With the lane on, unit signals ("200 kV") only raise the terms already seeded; the
    lane names the units after numbers itself, with their case ("mV" is not "MV"). True:
    they also add the terms they name, as without the lane (the reference)."""
    units_after_numbers: bool = True
    """A span right after a number that names a unit of measure names only its units
    ("100 m": the metre, not mass, a magnetic moment nor the prefix milli, which share
    its symbol), and a unit signal joins only those units. A unit is a term typed with
    a class whose name ends in "unit" (``qudt:Unit``, ``om:Unit``) or a subclass of a
    class so named or labelled (UO's "length unit"). False: every term the span names."""
    unit_namesakes: bool = True
    """A span naming a unit of measure also names each term, no unit itself, that has one
    of the unit's names of two words or more: "500 bp" names QUDT's unit *Base Pair*
    (symbol "bp") and SO's *base pair*, and ``units_after_numbers`` keeps it. A name of
    one word says nothing ("5 ft" names no foot). False: a unit's span names units only."""
    document_abbreviations: bool = True
    """A text retrieved with its document (``Engine.retrieve(text, document=...)``, the
    units of one ``doc_id`` in ``annotate`` and ``bench recall``) reads the
    abbreviations the document defines ("brown adipose tissue (BAT)" in another
    paragraph) as their long forms, taken in whole ("BAT" names *brown adipose tissue*,
    never *adipose tissue* alone); the text's own definitions come first. False: only
    the text's own."""


class ExpandSettings(_Group):
    """From seeds to context: closures and the budgeted induced subgraph."""

    graph_stage: bool = True
    """False: the context is the seeds' own statements (one level, within the budget), with
    no type promotion, schema closure, ancestors or small modules; the final pass still
    defines the catalog terms they name. The "no expansion" baseline of the benchmarks."""
    schema_closure_max_entities: int = ref("ONTOLOGY_PATCH_SCHEMA_CLOSURE_MAX_ENTITIES", 32, ge=0)
    schema_closure_ancestor_depth: int = ref(
        "ONTOLOGY_PATCH_SCHEMA_CLOSURE_ANCESTOR_DEPTH", 2, ge=0)
    small_module_closure_max_triples: int = ref(
        "ONTOLOGY_PATCH_SMALL_MODULE_CLOSURE_MAX_TRIPLES", 300, ge=0)
    small_module_closure_max_total_triples: int | None = ref(
        "ONTOLOGY_PATCH_SMALL_MODULE_CLOSURE_MAX_TOTAL_TRIPLES", None, ge=0)
    depth: int = ref("VECTOR_STORE_INDUCED_SUBGRAPH_DEPTH", 2, ge=0)
    hub_seed_count: int = ref("VECTOR_STORE_INDUCED_SUBGRAPH_HUB_SEED_COUNT", 16, ge=0)
    ancestor_closure_depth: int = ref(
        "VECTOR_STORE_INDUCED_SUBGRAPH_ANCESTOR_CLOSURE_DEPTH", 3, ge=0)
    max_total_triples: int = ref("VECTOR_STORE_INDUCED_SUBGRAPH_MAX_TOTAL_TRIPLES", 1200, ge=1)
    estimated_triples_per_query: int = ref(
        "VECTOR_STORE_INDUCED_SUBGRAPH_ESTIMATED_TRIPLES_PER_QUERY", 24, ge=1)
    type_promotion_score_factor: float = ref(
        "VECTOR_STORE_INDUCED_SUBGRAPH_TYPE_PROMOTION_SCORE_FACTOR", 1.0, ge=0)
    seed_order: SeedOrder = ref("VECTOR_STORE_INDUCED_SUBGRAPH_SEED_ORDER", SeedOrder.SCORE)
    candidate_pushdown: bool = ref("VECTOR_STORE_INDUCED_SUBGRAPH_CANDIDATE_PUSHDOWN", False)
    symbol_predicates: IriList = ref(
        "VECTOR_STORE_INDUCED_SUBGRAPH_SYMBOL_PREDICATES", SYMBOL_PREDICATES)
    context_max_triples: int = ref("ONTOLOGY_CONTEXT_MAX_TRIPLES", 4000, ge=1)
    name_reached_terms: bool = True
    """A term the expansion reaches as the subject of a statement (a seed's child, by its
    ``rdfs:subClassOf`` link) comes with its label, within the triple budget, so no
    context lists a term by an IRI that does not say its name (its label in
    ``context.languages`` first; none when the IRI spells it).
    False (the reference): the link alone, the term's name only if a later level reaches
    it."""


class ContextSettings(_Group):
    """What a context may spend: a budget in prompt tokens, spent by confidence."""

    budget: bool = True
    """False: no token budget, every statement the subgraph stage kept (up to
    ``expand.context_max_triples``), in every language (the reference)."""
    max_tokens: int | None = Field(None, ge=1)
    """A fixed budget for every text; None: ``base_tokens`` plus ``tokens_per_window``
    for each query window of the text after the first."""
    stub_generic_types: bool = False
    """A term's stub (what a tight budget names it by: one label, its symbols) carries
    its types only where they say what kind of thing it is in its own vocabulary
    (``qudt:Unit``, a domain class); the generic types of RDF, RDFS, OWL and SKOS
    (``owl:Class``, ``owl:ObjectProperty``, ``skos:Concept``) come with its shell, beside
    the parents, domain and range that imply them. True: every type in the stub."""
    reached_order: ReachedOrder = ReachedOrder.RANK
    """The order the budget adds the pool's terms that are not seeds, after the seeds'
    stubs and shells: ``rank``, the candidates the seed cut left out in the query's own
    order first (the evidence of the text before the graph's; their names before the
    shells of score-alone seeds, ``reserve_names_first``), then the others by the best
    seed they link to; ``link``, by that link alone."""
    reserve_names_first: bool = True
    """With ``reached_order`` "rank": the stubs of the candidates the seed cut left out
    (in the query's order) come right after the stubs of the seeds a score alone chose,
    before those seeds' shells. Evidence that weak buys names (more of the candidates the
    text may mean) before descriptions. False: after every seed's shell."""
    reserve_links_with_names: bool = False
    """With ``reserve_names_first``: a candidate's statements naming a seed (a relation's
    domain and range) come with its name. False: with the seeds' shells, so a tight
    budget names more candidates before it links them (Text2KGBench's scoped sentences:
    within 500 tokens +1.5 and +1.9 points on two samples, RESULTS session 25)."""
    seed_order_per_token: bool = True
    """Within each evidence tier, seeds by confidence per estimated token of their stub
    (its label, symbols and types, plus the ``@prefix`` line its namespace needs when no
    other seed shares it, or its IRI written out): a tight budget buys the most likely
    terms per token (within 500 tokens +0.24 and +0.34 points on two dev samples,
    RESULTS session 26). False: by confidence alone. Seeds without a confidence (a
    query scoped to named ontologies) keep their order."""
    seed_names_first: bool = True
    """The stubs (names) of the seeds of every evidence tier, and of the candidates
    ``reserve_names_first`` puts among them, come before any seed's shell: at a tight
    budget a weaker seed's name is worth more than a stronger one's description.
    False: stubs then shells tier by tier (before session 23)."""
    seed_stubs_across_tiers: bool = True
    """With ``seed_names_first`` and ``seed_order_per_token``: the seeds' stubs come in one
    order of confidence per token across the evidence tiers, since the confidence weighs
    the tier already; a cheap, likely tier-2 name may come before a costly tier-1 one
    (whole dev suite, within 500 tokens +0.22 and within 1,000 +0.20 points, RESULTS
    session 36). False: tier by tier, each by confidence per token. Seeds without a
    confidence (a query scoped to named ontologies) keep the tier order."""
    shell_implied_types: bool = False
    """A generic type a parent implies (``a owl:Class`` beside ``rdfs:subClassOf``,
    ``a skos:Concept`` beside ``skos:broader``) leaves the shell for the rest: only a
    class has a superclass. True: it stays in the shell."""
    stub_iri_labels: bool = False
    """A label that only spells the term's IRI ("relations#mainIngredient" labelled
    "mainIngredient", ``unit:DAY`` "day") leaves the stub where a type or a symbol can
    name the term instead: Turtle shows the name already. It comes with the term's rest,
    once everything else is granted. True: the label stays in the stub."""
    stub_foreign_labels: bool = False
    """A label in a language ``languages`` does not keep, there only because the term has
    none in those (``pizza:MozzarellaTopping`` labelled "CoberturaDeMozzarella"@pt),
    leaves the stub where the IRI reads as words and a type or a symbol can name the
    term: Turtle shows the words. It waits with the labels the IRIs spell. True: the
    label stays in the stub."""
    stub_repeated_symbols: bool = False
    """A symbol that spells one the stub holds already (a QUDT unit's ``qudt:ucumCode
    "mV"`` beside ``qudt:symbol "mV"``) waits in the term's rest. True: every symbol is
    in the stub."""
    pull_implied_stubs: bool = False
    """A statement that names another pool term pulls that term's stub in with it (so no
    term is named without being introduced), except a stub that only says what the
    naming statement implies: ``a owl:Class`` of a term named as a type, a domain, a
    range or a superclass, ``a skos:Concept`` of a broader concept. Such a stub waits
    for the term's own turn. True: every stub is pulled."""
    base_tokens: int = Field(1500, ge=1)
    """The budget of a one-window text (a sentence or a short paragraph)."""
    tokens_per_window: int = Field(1000, ge=0)
    token_counter: TokenCounterKind = TokenCounterKind.ESTIMATE
    """What a budget counts when the caller passes no counter: an estimate of a
    large language model's tokenizer, or the dense encoder's own."""
    languages: StrList = ("en", "")
    """Literal languages a context keeps: primary language tags ("en" keeps "en-US"),
    "" for untagged literals, "*" for every language. The index matches all."""
    definition_tokens: int = Field(80, ge=8)
    """A definition longer than this is cut at a sentence boundary within it."""
    synonyms: int = Field(3, ge=0)
    """Synonyms and alternative labels in a term's shell (the rest follow when budget
    is left)."""
    axioms: int = Field(3, ge=0)
    """A seed's first class expressions (``rdfs:subClassOf`` or ``owl:equivalentClass`` a
    restriction or a union that names a class: the Pizza ontology's *Margherita*
    ``hasTopping some MozzarellaTopping``) come right after the seeds' shells, before the
    terms the expansion reached; a reached term's after every name and shell, before the
    rests. ``owl:disjointWith`` (what a term is not) waits in the rest. 0: every class
    expression in the rest."""
    shell_inexact_synonyms: bool = False
    """Related, broad and narrow synonyms (oboInOwl) wait in the rest: they name looser or
    other things ("fel" and "gall" for *bile*, "egg laying" for *parturition*), so a
    shell's synonyms are exact ones and alternative labels. True: any kind counts toward
    ``synonyms``, in statement order."""

    @property
    def every_language(self) -> bool:
        return "*" in self.languages


class CriticSettings(_Group):
    """The consistency critic over proposed updates."""

    min_fused_score: float = ref("VECTOR_STORE_CONSISTENCY_CRITIC_MIN_FUSED_SCORE", 0.5, ge=0)


class ServerSettings(_Group):
    """The HTTP and MCP servers, the result cache and what a context never shows."""

    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    require_api_key: bool | None = None
    """None: required as soon as any tenant has a key; True/False force it."""
    max_request_bytes: int = Field(1_000_000, ge=1)
    request_timeout_seconds: float = Field(60.0, gt=0)
    write_timeout_seconds: float = Field(1800.0, gt=0)
    """How long an upload, apply or rollback may take before the answer is a 504 that
    says the write goes on (a write is never cancelled half-way)."""
    read_deadline_seconds: float = Field(30.0, gt=0)
    """A client has this long to send a whole request (from connecting or from the
    previous answer); a slower or half-open connection is closed."""
    max_connections: int = Field(512, ge=1)
    """Open connections at most; past it a request is answered 503 at once."""
    max_text_chars: int = Field(200_000, ge=1)
    workers: int = Field(2, ge=1)
    """Requests computed at once; more wait their turn (the model uses both cores)."""
    result_cache_size: int = Field(256, ge=0)
    young_collection_threshold: int = Field(50_000, ge=0)
    """New container objects between two young collections of Python's cyclic garbage
    collector (``gc.set_threshold``'s first value), which an engine raises its
    process's to when it opens (never lowers; 0: the host's stays). At Python's 700 a
    warm engine spent 9-12 % of its time collecting, at 50,000 2 % (see
    ``ontoretrieve/collector.py``)."""
    hidden_predicates: IriList = ()
    """Predicates (internal notes, secrets) whose statements never reach a context."""
    watch_interval_seconds: float = Field(2.0, gt=0)
    watch_settle_seconds: float = Field(3.0, ge=0)
