"""The result of each operation as every surface returns it: one schema, versioned.

The CLI's ``--json``, the HTTP API and the MCP tools return these models, so a
pipeline that switches surface parses the same JSON. ``schema_version`` is
raised when a field changes meaning or goes away (added fields do not raise
it). ``slice`` and ``lookup`` return ``KnowledgeSlice`` and ``LookupResult``
as they are; ``retrieve`` and ``catalog list`` have their own models here
because their Python values (``Context``, a list of versions) are not what a
surface should send: a ``Context`` keeps its graph as N-Triples for
``Context.graph()``, while surfaces send it once, as Turtle.

>>> from ontoretrieve.context.model import Context, ContextMetrics, Mode, Snapshot
>>> ctx = Context(mode=Mode.VECTOR, ntriples='<http://x/a> <http://x/p> "o" .\\n',
...               terms=["http://x/a"], seeds=[], evidence={},
...               snapshot=Snapshot(cut_from=[], writable=[]),
...               metrics=ContextMetrics(mode=Mode.VECTOR))
>>> result = RetrieveResult.of(ctx)
>>> result.schema_version, result.terms, "ntriples" in result.model_dump()
(1, ['http://x/a'], False)
>>> print(result.turtle.strip())
<http://x/a> <http://x/p> "o" .
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ontoretrieve.context.model import (
    Context,
    ContextMetrics,
    Diagnosis,
    Mode,
    Snapshot,
    TermEvidence,
)
from ontoretrieve.records import LoadState, OntologyVersion, SeedEvidence

__all__ = ["CatalogListing", "RetrieveResult"]


class RetrieveResult(BaseModel):
    """The context of a text: its graph as Turtle, its terms and why each is there."""

    schema_version: Literal[1] = Field(1, description="Raised when a field changes meaning.")
    mode: Mode = Field(description="The mode that built the context (auto resolved).")
    turtle: str = Field(description="The context's graph in Turtle, prefixes bound.")
    terms: list[str] = Field(description="Every named term of the context, in rank order.")
    seeds: list[SeedEvidence] = Field(description=(
        "The terms the text itself pointed at, best first, with their lane evidence and "
        "the spans of the text that named them."))
    evidence: dict[str, TermEvidence] = Field(description=(
        "Per term: how it entered the context (retrieved, expanded, ...), its score and "
        "ontology."))
    snapshot: Snapshot = Field(description=(
        "The ontology versions the context was cut from, and those a proposal may write."))
    metrics: ContextMetrics = Field(description="Sizes, budgets, caches and the funnel.")
    diagnosis: Diagnosis | None = Field(None, description=(
        "Why the context is empty or thin, when it is."))
    warnings: list[str] = []
    seconds: dict[str, float] = Field({}, description="Time per stage.")

    @classmethod
    def of(cls, context: Context, *, turtle: bool = True) -> RetrieveResult:
        """The surface form of a ``Context`` (``turtle=False``: the graph left out, "")."""
        fields = context.model_dump(exclude={"ntriples"})
        body = context.serialize("turtle") if turtle else ""
        return cls.model_validate({**fields, "turtle": body})


class CatalogListing(BaseModel):
    """The ontology versions a tenant reads, and how its last load went."""

    schema_version: Literal[1] = Field(1, description="Raised when a field changes meaning.")
    ontologies: list[OntologyVersion]
    last_load: LoadState | None = Field(None, description=(
        "The tenant's last catalog load (None: never loaded); partial when files failed."))
