"""Adapters: knowledge sources behind one small protocol, and fan-out.

An adapter can ``describe`` itself, ``query`` (entity hits for a text) and
``slice`` (hits plus a Turtle body within a token budget). The tenant's
catalog is one adapter (``CatalogAdapter``); any SPARQL 1.1 endpoint is
another (``SparqlEndpointAdapter``, through the ``TripleStore`` protocol, so
every value it sends is escaped by ``sparql``). ``fan_out`` asks them all at
once, merges the hits, keeps one per (adapter, entity id), and lists a
failing adapter in ``adapter_errors`` while the others still answer.

>>> class Fixed:
...     name = "fixed"
...     def describe(self): return AdapterInfo(name="fixed", kind="test", source="-")
...     def query(self, text, limit): return [AdapterHit(adapter="fixed", id="x:a", score=1.0)]
...     def slice(self, text, max_tokens): raise NotImplementedError
>>> class Broken(Fixed):
...     name = "broken"
...     def query(self, text, limit): raise OSError("endpoint down")
>>> result = fan_out([Fixed(), Broken(), Fixed()], "text")
>>> [h.id for h in result.hits], [e.adapter for e in result.adapter_errors]
(['x:a'], ['broken'])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Protocol

import pyoxigraph as ox
from pydantic import BaseModel

from ontoretrieve.backends.triple_store import TripleStore
from ontoretrieve.context.model import Mode
from ontoretrieve.engine.slices import KnowledgeSlice, fit_turtle
from ontoretrieve.query.lexical import phrase_lexemes
from ontoretrieve.rdf import sparql
from ontoretrieve.rdf.vocab import LABEL_PREDICATES, RDF_TYPE
from ontoretrieve.records import OntologyVersion

__all__ = [
    "Adapter",
    "AdapterError",
    "AdapterHit",
    "AdapterInfo",
    "AdapterSlice",
    "CatalogAdapter",
    "FanOutResult",
    "SparqlEndpointAdapter",
    "fan_out",
]



class AdapterInfo(BaseModel):
    name: str
    kind: str
    source: str
    """What it reads: a tenant's catalog, an endpoint URL."""


class AdapterHit(BaseModel):
    adapter: str
    id: str
    label: str | None = None
    kind: str = "term"
    score: float
    source: str | None = None
    """The ontology (catalog) or endpoint the entity came from."""


class AdapterSlice(BaseModel):
    adapter: str
    hits: list[AdapterHit]
    context: str
    token_estimate: int
    truncated: bool


class AdapterError(BaseModel):
    adapter: str
    message: str


class FanOutResult(BaseModel):
    hits: list[AdapterHit]
    adapter_errors: list[AdapterError]


class Adapter(Protocol):
    """A knowledge source. ``query`` and ``slice`` may raise; fan-out turns that soft."""

    name: str

    def describe(self) -> AdapterInfo: ...

    def query(self, text: str, limit: int) -> list[AdapterHit]: ...

    def slice(self, text: str, max_tokens: int) -> AdapterSlice: ...


UNBOUNDED_TOKENS = 10**6
"""A budget no slice reaches: the adapter wants every seed as a hit, not a cut."""


class CatalogSource(Protocol):
    """What ``CatalogAdapter`` needs of the engine (``Engine`` is one)."""

    def catalog_list(self, *, tenant: str) -> list[OntologyVersion]: ...

    def slice(self, text: str, max_tokens: int, *, tenant: str,
              mode: Mode | str = Mode.AUTO) -> KnowledgeSlice: ...


class CatalogAdapter:
    """A tenant's catalog through the engine (its seeds are the hits)."""

    def __init__(self, engine: CatalogSource, tenant: str) -> None:
        self.engine, self.tenant = engine, tenant
        self.name = f"catalog:{tenant}"

    def describe(self) -> AdapterInfo:
        versions = self.engine.catalog_list(tenant=self.tenant)
        return AdapterInfo(name=self.name, kind="catalog",
                           source=f"{len(versions)} ontology versions")

    def query(self, text: str, limit: int) -> list[AdapterHit]:
        # Vector mode even for a catalog small enough for ``auto`` to take whole:
        # hits are the seeds, ranked by how well they match the text.
        cut = self.engine.slice(text, UNBOUNDED_TOKENS, tenant=self.tenant,
                                mode=Mode.VECTOR)
        scored = [h for h in cut.hits if h.score is not None]
        return [AdapterHit(adapter=self.name, id=h.id, label=h.label, kind=h.kind,
                           score=float(h.score or 0.0), source=h.ontology)
                for h in scored[:limit]]

    def slice(self, text: str, max_tokens: int) -> AdapterSlice:
        cut = self.engine.slice(text, max_tokens, tenant=self.tenant)
        return AdapterSlice(adapter=self.name, hits=[
            AdapterHit(adapter=self.name, id=h.id, label=h.label, kind=h.kind,
                       score=h.score or 0.0, source=h.ontology) for h in cut.hits],
            context=cut.context, token_estimate=cut.token_estimate, truncated=cut.truncated)


class SparqlEndpointAdapter:
    """Exact label matches of a text's phrases in a remote SPARQL endpoint.

    One SELECT with the phrases as literals (plain and ``@en``) in VALUES, so
    the endpoint answers from its index; the slice is one CONSTRUCT of the
    hits' own statements, cut to the budget like a catalog slice.
    """

    def __init__(self, name: str, store: TripleStore,
                 count_tokens: Callable[[str], int], max_phrases: int = 200) -> None:
        self.name, self.store, self.count_tokens = name, store, count_tokens
        self.max_phrases = max_phrases

    def describe(self) -> AdapterInfo:
        return AdapterInfo(name=self.name, kind="sparql", source=self.store.description)

    def query(self, text: str, limit: int) -> list[AdapterHit]:
        phrases = [p for p in phrase_lexemes(text) if len(p) >= 3][: self.max_phrases]
        if not phrases:
            return []
        literals = " ".join(f"{sparql.literal(p)} {sparql.literal(p, language='en')}"
                            for p in phrases)
        predicates = ", ".join(sparql.iri(p) for p in LABEL_PREDICATES)
        rows = self.store.select(
            f"SELECT DISTINCT ?s ?label ?type WHERE {{ VALUES ?label {{ {literals} }} "
            f"?s ?p ?label . FILTER(?p IN ({predicates})) FILTER(isIRI(?s)) "
            f"OPTIONAL {{ ?s {sparql.iri(RDF_TYPE)} ?type }} }} LIMIT {limit * 4}")
        hits: dict[str, AdapterHit] = {}
        for row in rows:
            iri = row["s"].value
            label = row["label"].value
            # Longer phrases are more specific matches: they score higher.
            score = min(1.0, 0.5 + 0.1 * len(label.split()))
            if iri not in hits or hits[iri].score < score:
                kind = row["type"].value.rsplit("#", 1)[-1] if "type" in row else "term"
                hits[iri] = AdapterHit(adapter=self.name, id=iri, label=label, kind=kind,
                                       score=score, source=self.store.description)
        return sorted(hits.values(), key=lambda h: (-h.score, h.id))[:limit]

    def slice(self, text: str, max_tokens: int) -> AdapterSlice:
        hits = self.query(text, 20)
        triples: list[ox.Triple] = []
        if hits:
            values = " ".join(sparql.iri(h.id) for h in hits)
            triples = self.store.construct(
                f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ VALUES ?s {{ {values} }} ?s ?p ?o }} "
                f"LIMIT {50 * len(hits)}")
        taken, text_out, tokens, _ = fit_turtle(triples, [h.id for h in hits], max_tokens,
                                                    self.count_tokens)
        kept = {iri for iri, _ in taken}
        return AdapterSlice(adapter=self.name, hits=[h for h in hits if h.id in kept],
                            context=text_out, token_estimate=tokens,
                            truncated=sum(len(ts) for _, ts in taken) < len(triples))


def fan_out(adapters: Sequence[Adapter], text: str, limit: int = 20,
            timeout_seconds: float = 30.0) -> FanOutResult:
    """Ask every adapter at once; merge, dedupe by (adapter, id), errors soft."""
    errors: list[AdapterError] = []
    merged: dict[tuple[str, str], AdapterHit] = {}
    with ThreadPoolExecutor(max_workers=max(1, len(adapters))) as pool:
        futures = [(a, pool.submit(a.query, text, limit)) for a in adapters]
        for adapter, future in futures:
            try:
                hits = future.result(timeout=timeout_seconds)
            except FutureTimeout:
                errors.append(AdapterError(adapter=adapter.name, message=(
                    f"no answer within {timeout_seconds:g} s")))
                continue
            except Exception as exc:  # one failing source must not fail the others
                errors.append(AdapterError(adapter=adapter.name,
                                           message=f"{type(exc).__name__}: {exc}"))
                continue
            for hit in hits:
                key = (hit.adapter, hit.id)
                if key not in merged or merged[key].score < hit.score:
                    merged[key] = hit
    ranked = sorted(merged.values(), key=lambda h: (-h.score, h.adapter, h.id))
    return FanOutResult(hits=ranked[:limit], adapter_errors=errors)
