"""What an index holds, kept beside it in ``state.json`` and written atomically.

The state names the index location (so a rebuild can fill a fresh location and
switch to it in one rename), its fingerprint, the ontology versions it holds
(by content hash) and the ones a sync had started on (``pending``): a process
killed mid-sync leaves ``pending`` behind, and the next sync finishes or
removes those points.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from ontoretrieve.errors import IndexError_
from ontoretrieve.kept import write_atomic

__all__ = ["IndexState", "IndexedOntology", "ontology_names", "replacements"]


def ontology_names(ontology_iri: str, content_hash: str, sources: Sequence[str]
                   ) -> set[str]:
    """Every name a caller may use for an ontology version: IRI, content hash, and
    each source's path, file name and file stem.

    >>> sorted(ontology_names("http://x/o", "ab12", ["cat/pizza.owl"]))
    ['ab12', 'cat/pizza.owl', 'http://x/o', 'pizza', 'pizza.owl']
    """
    names = {ontology_iri, content_hash}
    for source in sources:
        file_name = source.rsplit("/", 1)[-1]
        names |= {source, file_name, file_name.rsplit(".", 1)[0]}
    return names - {""}


class IndexedOntology(BaseModel):
    ontology_iri: str
    version: str | None = None
    sources: list[str]
    atoms: int
    layers: list[str] = Field(default_factory=list)
    """Hashes of earlier versions whose stored points this version also reads (oldest
    first): a version that replaced another wrote only the atoms it changed."""
    hidden: dict[str, list[str]] = Field(default_factory=dict)
    """Per layer, the ids of its points this version does not have (changed or gone)."""

    def reads(self, content_hash: str) -> list[str]:
        """The hashes whose points make up this version (``content_hash`` is its own)."""
        return [*self.layers, content_hash]


class IndexState(BaseModel):
    """The persisted state of one tenant's index."""

    backend: str
    location: str = Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
    """Shard folder name (Edge) or collection name (Qdrant server): a plain name, so a
    state file edited to say ``../x`` never puts a shard outside the data directory."""
    dimension: int
    fingerprint: dict[str, str]
    ontologies: dict[str, IndexedOntology] = Field(default_factory=dict)
    pending: list[str] = Field(default_factory=list)
    retained: dict[str, IndexedOntology] = Field(default_factory=dict)
    """Versions the catalog no longer has whose points stay because a version in
    ``ontologies`` reads them as a layer; a version coming back (a rollback) is
    moved back without a write. Points of a retained version no indexed version
    reads are deleted."""
    points: int | None = None
    """Points in the index after the last sync that wrote to it (None: not counted yet)."""
    updated_at: datetime = Field(default_factory=lambda: datetime.now(UTC))

    def named(self, names: Iterable[str]) -> frozenset[str]:
        """The content hashes of the indexed ontology versions ``names`` names
        (see ``ontology_names``).

        >>> state = IndexState(backend="edge", location="x", dimension=2, fingerprint={},
        ...     ontologies={"ab12": IndexedOntology(ontology_iri="http://x/o",
        ...                                         sources=["cat/pizza.owl"], atoms=3)})
        >>> sorted(state.named(["pizza"])), sorted(state.named(["nope"]))
        (['ab12'], [])
        """
        wanted = set(names)
        return frozenset(content_hash for content_hash, info in self.ontologies.items()
                         if wanted & ontology_names(info.ontology_iri, content_hash,
                                                    info.sources))

    def layered(self) -> bool:
        """Whether any version reads another's points (else every hash is a version)."""
        return bool(self.retained) or any(o.layers for o in self.ontologies.values())

    def layers_in_use(self) -> set[str]:
        """Every hash an indexed version reads, its own included."""
        return {h for content_hash, info in self.ontologies.items()
                for h in info.reads(content_hash)}

    @classmethod
    def load(cls, path: Path) -> IndexState | None:
        """The state at ``path``, or None when there is none yet."""
        try:
            return cls.model_validate_json(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValidationError, ValueError) as exc:
            raise IndexError_(f"index state {path} is unreadable ({exc}); rebuild with "
                              "`ontoretrieve index --rebuild`") from exc

    def save(self, path: Path) -> None:
        """Write to a temporary file, fsync, rename: never a half-written state."""
        self.updated_at = datetime.now(UTC)
        write_atomic(path, json.dumps(self.model_dump(mode="json"), indent=1).encode("utf-8"),
                     prefix=".state-")


def replacements(before: IndexState, after: IndexState) -> dict[str, str]:
    """Which version replaced which between two states of one index (old hash -> new
    hash, paired by ontology IRI): what an apply or a rollback did. Empty when the
    change is anything else (an ontology added or removed, two versions of one IRI).

    >>> def state(**versions: str) -> IndexState:
    ...     return IndexState(backend="edge", location="x", dimension=2, fingerprint={},
    ...         ontologies={h: IndexedOntology(ontology_iri=iri, sources=[], atoms=1)
    ...                     for h, iri in versions.items()})
    >>> replacements(state(a1="http://x/a", b1="http://x/b"),
    ...              state(a2="http://x/a", b1="http://x/b"))
    {'a1': 'a2'}
    >>> replacements(state(a1="http://x/a"), state(a1="http://x/a", c1="http://x/c"))
    {}
    """
    gone = {h: before.ontologies[h].ontology_iri
            for h in before.ontologies.keys() - after.ontologies.keys()}
    new = {after.ontologies[h].ontology_iri: h
           for h in after.ontologies.keys() - before.ontologies.keys()}
    if len(new) != len(gone) or sorted(gone.values()) != sorted(new):
        return {}
    return {old: new[iri] for old, iri in gone.items()}
