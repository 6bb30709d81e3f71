"""Benchmark units from the three layouts ``bench recall`` reads.

A unit is one text with its gold terms. Three layouts are recognised, each
by its shape rather than by a flag:

- a bench units file (``*.jsonl``; rows with ``unit_id``, ``source``,
  ``text``, ``gold_iris``, ``gold_any_of``, ``gold_iris_derived`` and
  optionally ``ontology``), as the bench suite's units files;
- the reference's corpus folder: ``cases.jsonl`` rows
  ``{"id", "text", "expected_iris", "ontology_iri"}`` beside
  ``ontologies/*.ttl``, which is then the catalog;
- a Text2KGBench dataset folder (``ontologies/*_ontology.json`` and
  ``train/``/``test/`` JSONL rows with ``sent`` and ``triples``, test gold in
  ``ground_truth/``): gold terms are the relations of the triples, derived
  gold their domain and range concepts; the catalog is
  ``ontologies/owl/*.ttl`` when shipped, else Turtle written from the JSON
  ontologies with the same IRIs.

Every gold term is a group of IRIs of which one suffices (a plain gold IRI is
a group of one), so an any-of group counts once in micro recall.

>>> unit = BenchUnit(id="u1", source="demo", text="5 mV", gold=[["http://x/mV"]])
>>> unit.gold_groups()
[frozenset({'http://x/mV'})]
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from pydantic import BaseModel, Field

from ontoretrieve.bench.compare import read_jsonl
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.query.documents import document_id, joined_documents
from ontoretrieve.rdf.vocab import (
    OWL,
    OWL_CLASS,
    OWL_OBJECT_PROPERTY,
    OWL_ONTOLOGY,
    RDF_TYPE_NODE,
    RDFS,
    RDFS_DOMAIN,
    RDFS_LABEL_NODE,
    RDFS_RANGE,
)

__all__ = ["BenchUnit", "UnitSet", "read_units", "sample_units", "text2kg_turtle"]

T2K_BASE = "https://cenguix.github.io/Text2KGBench/"
"""The IRI base of Text2KGBench's own OWL files, so converted and shipped Turtle agree."""


class BenchUnit(BaseModel):
    id: str
    source: str
    text: str
    gold: list[list[str]]
    """Gold terms, each a list of acceptable IRIs (one of them suffices)."""
    derived: list[str] = []
    """Secondary gold (Text2KGBench: domain and range classes of the gold relations)."""
    ontology: str | None = None
    """The unit's own ontology (IRI, file name or stem), where the dataset names one."""
    doc_id: str | None = None
    """The document the unit is a paragraph of, where the dataset says (CRAFT's article)."""
    document: str | None = Field(None, repr=False, exclude=True)
    """The whole document: the texts of every unit with this ``doc_id`` in the file, in
    file order (``with_documents``), whatever part of them a sample keeps."""

    def gold_groups(self) -> list[frozenset[str]]:
        return [frozenset(group) for group in self.gold if group]


class UnitSet(BaseModel):
    units: list[BenchUnit]
    catalogs: list[Path] = []
    """Catalog files or folders the layouts bring with them (corpus and Text2KGBench)."""


def read_units(paths: Sequence[Path], work_dir: Path) -> UnitSet:
    """Units of every path, in order; ``work_dir`` receives converted Text2KGBench Turtle."""
    units: list[BenchUnit] = []
    catalogs: list[Path] = []
    for path in paths:
        if path.is_file():
            units += with_documents(_bench_units(path))
        elif (path / "cases.jsonl").is_file():
            units += _corpus_cases(path)
            catalogs.append(path / "ontologies")
        elif (path / "ontologies").is_dir() and any((path / "ontologies").glob("*.json")):
            found, catalog = _text2kg(path, work_dir / f"text2kg-{path.name}")
            units += found
            catalogs.append(catalog)
        else:
            raise OntoRetrieveError(
                f"{path}: not a units file, a corpus folder (cases.jsonl + ontologies/) "
                "or a Text2KGBench folder (ontologies/*.json + train/ or test/)")
    seen: dict[str, str] = {}
    for unit in units:
        if unit.id in seen:
            raise OntoRetrieveError(f"unit id {unit.id!r} appears twice")
        seen[unit.id] = unit.source
    return UnitSet(units=units, catalogs=catalogs)


def sample_units(units: Sequence[BenchUnit], size: int | None, seed: int
                 ) -> list[BenchUnit]:
    """``size`` units per source drawn with a fixed seed (all of a source when fewer).

    >>> us = [BenchUnit(id=str(i), source="s", text="t", gold=[]) for i in range(10)]
    >>> [u.id for u in sample_units(us, 3, seed=1)] == [u.id for u in sample_units(us, 3, 1)]
    True
    >>> len(sample_units(us, None, 1))
    10
    """
    if size is None:
        return list(units)
    by_source: dict[str, list[BenchUnit]] = {}
    for unit in units:
        by_source.setdefault(unit.source, []).append(unit)
    chosen: list[BenchUnit] = []
    for group in by_source.values():
        chosen += random.Random(seed).sample(group, min(size, len(group)))
    return chosen


# -- bench units ---------------------------------------------------------------------------

def _bench_units(path: Path) -> list[BenchUnit]:
    units = []
    for number, row in enumerate(read_jsonl(path, "text"), start=1):
        ident = row.get("unit_id", row.get("id"))
        if not isinstance(ident, str) or not isinstance(row["text"], str):
            raise OntoRetrieveError(f"{path}: row {number}: needs a string unit_id and text")
        gold = [[iri] for iri in _strings(row.get("gold_iris", []), path, number)]
        for group in row.get("gold_any_of", []) or []:
            gold.append(_strings(group, path, number))
        if "expected_iris" in row:  # a reference cases file given directly
            gold += [[iri] for iri in _strings(row["expected_iris"], path, number)]
        units.append(BenchUnit(
            id=ident, source=str(row.get("source") or path.stem), text=row["text"], gold=gold,
            derived=_strings(row.get("gold_iris_derived", []), path, number),
            ontology=row.get("ontology") or row.get("ontology_iri"),
            doc_id=_doc_id(row.get("doc_id"), path, number)))
    return units


def _doc_id(value: Any, path: Path, number: int) -> str | None:
    try:
        return document_id(value)
    except TypeError:
        raise OntoRetrieveError(
            f"{path}: row {number}: doc_id must be a string, got {value!r}") from None


def with_documents(units: Sequence[BenchUnit]) -> list[BenchUnit]:
    """The units, each with a ``doc_id`` given its whole document (``joined_documents``).

    >>> us = [BenchUnit(id="a", source="s", text="Brown fat (BF).", gold=[], doc_id="d"),
    ...       BenchUnit(id="b", source="s", text="BF grew.", gold=[], doc_id="d")]
    >>> with_documents(us)[1].document
    'Brown fat (BF).\\n\\nBF grew.'
    """
    documents = joined_documents((unit.doc_id, unit.text) for unit in units)
    return [unit.model_copy(update={"document": documents[unit.doc_id]})
            if unit.doc_id is not None else unit for unit in units]


def _strings(value: Any, path: Path, number: int) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise OntoRetrieveError(f"{path}: row {number}: expected a list of IRIs, got {value!r}")
    return value


# -- the reference's corpus folder ---------------------------------------------------------

def _corpus_cases(folder: Path) -> list[BenchUnit]:
    path = folder / "cases.jsonl"
    units = []
    for number, row in enumerate(read_jsonl(path, "text"), start=1):
        if "id" not in row or "expected_iris" not in row:
            raise OntoRetrieveError(f"{path}: row {number}: needs id and expected_iris")
        units.append(BenchUnit(
            id=str(row["id"]), source=folder.name, text=str(row["text"]),
            gold=[[iri] for iri in _strings(row["expected_iris"], path, number)],
            ontology=row.get("ontology_iri")))
    return units


# -- Text2KGBench --------------------------------------------------------------------------

def _text2kg(folder: Path, work_dir: Path) -> tuple[list[BenchUnit], Path]:
    ontologies = {}
    for path in sorted((folder / "ontologies").glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            ontologies[str(data["id"])] = data
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise OntoRetrieveError(f"{path}: not a Text2KGBench ontology: {exc}") from None
    shipped = folder / "ontologies" / "owl"
    if shipped.is_dir() and any(shipped.glob("*.ttl")):
        catalog = shipped
    else:
        work_dir.mkdir(parents=True, exist_ok=True)
        for ident, data in ontologies.items():
            (work_dir / f"{ident}.ttl").write_text(text2kg_turtle(data), encoding="utf-8")
        catalog = work_dir
    truth: dict[str, Any] = {}
    for path in sorted((folder / "ground_truth").glob("*.jsonl")):
        truth.update({str(r["id"]): r.get("triples", []) for r in read_jsonl(path, "id")})
    units = []
    for split in ("train", "test"):
        for path in sorted((folder / split).glob("*.jsonl")):
            match = next((o for o in sorted(ontologies, key=len, reverse=True)
                          if path.stem.startswith(o + "_")), None)
            if match is None:
                raise OntoRetrieveError(f"{path}: no ontology in {folder / 'ontologies'} "
                                        "matches this file's name")
            ident = match
            relations = {str(r["label"]): r for r in ontologies[ident].get("relations", [])}
            for number, row in enumerate(read_jsonl(path, "id"), start=1):
                triples = row.get("triples", truth.get(str(row["id"])))
                if not triples or "sent" not in row:
                    continue  # a test row without ground truth cannot be scored
                units.append(_text2kg_unit(row, triples, ident, relations, path, number))
    return units, catalog


def _text2kg_unit(row: dict[str, Any], triples: Iterable[dict[str, Any]], ident: str,
                  relations: dict[str, dict[str, Any]], path: Path, number: int) -> BenchUnit:
    gold: list[str] = []
    derived: list[str] = []
    for triple in triples:
        relation = relations.get(str(triple.get("rel")))
        if relation is None:
            raise OntoRetrieveError(f"{path}: row {number}: relation {triple.get('rel')!r} "
                                    f"is not in ontology {ident}")
        iri = _t2k_iri(ident, "relations", str(relation.get("pid") or relation["label"]))
        if iri not in gold:
            gold.append(iri)
        for end in ("domain", "range"):
            if relation.get(end):
                concept = _t2k_iri(ident, "concepts", str(relation[end]))
                if concept not in derived:
                    derived.append(concept)
    return BenchUnit(id=f"text2kg:{row['id']}", source="text2kg", text=str(row["sent"]),
                     gold=[[iri] for iri in gold], derived=derived, ontology=ident)


def _t2k_iri(ident: str, kind: str, name: str) -> str:
    return f"{T2K_BASE}{ident}/{kind}#{name.replace(' ', '_')}"


def text2kg_turtle(data: dict[str, Any]) -> str:
    """A Text2KGBench JSON ontology as OWL in Turtle, with the IRIs of its own OWL files.

    >>> ttl = text2kg_turtle({"id": "ont_x", "title": "X", "concepts": [
    ...     {"qid": "City", "label": "City"}], "relations": [
    ...     {"pid": "mayor", "label": "mayor", "domain": "City", "range": "Person"}]})
    >>> "rel:mayor" in ttl and "owl:ObjectProperty" in ttl
    True
    """
    ident = str(data["id"])
    label, a = RDFS_LABEL_NODE, RDF_TYPE_NODE
    header = ox.NamedNode(f"{T2K_BASE}{ident}")
    triples = [ox.Triple(header, a, ox.NamedNode(OWL_ONTOLOGY)),
               ox.Triple(header, label, ox.Literal(str(data.get("title") or ident)))]
    for concept in data.get("concepts", []):
        node = ox.NamedNode(_t2k_iri(ident, "concepts", str(concept["qid"])))
        triples += [ox.Triple(node, a, ox.NamedNode(OWL_CLASS)),
                    ox.Triple(node, label, ox.Literal(str(concept["label"])))]
    for relation in data.get("relations", []):
        node = ox.NamedNode(_t2k_iri(ident, "relations",
                                     str(relation.get("pid") or relation["label"])))
        triples += [ox.Triple(node, a, ox.NamedNode(OWL_OBJECT_PROPERTY)),
                    ox.Triple(node, label, ox.Literal(str(relation["label"])))]
        for end, predicate in (("domain", RDFS_DOMAIN), ("range", RDFS_RANGE)):
            if relation.get(end):
                triples.append(ox.Triple(node, ox.NamedNode(predicate), ox.NamedNode(
                    _t2k_iri(ident, "concepts", str(relation[end])))))
    turtle = ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes={
        "owl": OWL, "rdfs": RDFS, "rel": f"{T2K_BASE}{ident}/relations#",
        "con": f"{T2K_BASE}{ident}/concepts#"})
    return (turtle or b"").decode()
