"""What the query path gives for one text: its seeds, the funnel and stage timings."""

from __future__ import annotations

from pydantic import BaseModel

from ontoretrieve.records import SeedEvidence, SeedFunnel

__all__ = ["SeedResult"]


class SeedResult(BaseModel):
    """Ranked seeds of one text, with their evidence, the funnel and stage timings."""

    seeds: list[SeedEvidence]
    funnel: SeedFunnel
    seconds: dict[str, float]
    reserve: list[str] = []
    """Up to 64 candidate terms the cut left out, best first (merged fused score): the
    order in which a budget adds the pool's other terms after the seeds."""
