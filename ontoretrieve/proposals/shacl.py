"""SHACL validation with pyshacl: the shapes in ``shapes/`` plus a tenant's own.

pyshacl works on rdflib graphs, which are slow to build (about 57 s per 1M
triples), so callers pass only the statements an update touches, inside the
whole ontology, with the types of what they reference; see
``proposals/runner.py``. Results name the shape that failed: a property
shape written as a blank node is reported under the node shape that holds it.

>>> shapes = load_shapes([DEFAULT_SHAPES])
>>> import pyoxigraph as ox
>>> from ontoretrieve.rdf.vocab import OWL_CLASS, RDF_TYPE_NODE
>>> new_class = ox.Triple(ox.NamedNode("http://x/A"), RDF_TYPE_NODE, ox.NamedNode(OWL_CLASS))
>>> [r.shape for r in validate([new_class], shapes)]
['https://w3id.org/ontoretrieve/shapes#ClassHasLabel']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pyoxigraph as ox
import rdflib

from ontoretrieve.errors import SettingsError
from ontoretrieve.rdf.vocab import SH

__all__ = ["DEFAULT_SHAPES", "ShapeResult", "load_shapes", "validate"]

DEFAULT_SHAPES = Path(__file__).resolve().parents[2] / "shapes" / "catalog.ttl"
_SH = rdflib.Namespace(SH)


@dataclass(frozen=True)
class ShapeResult:
    """One SHACL violation: the shape, the focus node, the path and the message."""

    shape: str
    focus: str
    path: str | None
    message: str


def load_shapes(paths: Sequence[Path]) -> rdflib.Graph:
    """The union of the shape files (read once per process and set of paths)."""
    return _load(tuple(Path(p).resolve() for p in paths))


@lru_cache(maxsize=8)
def _load(paths: tuple[Path, ...]) -> rdflib.Graph:
    graph = rdflib.Graph()
    for path in paths:
        try:
            graph.parse(path, format="turtle")
        except (OSError, SyntaxError, ValueError) as exc:
            raise SettingsError(f"SHACL shapes {path}: {exc}") from None
    return graph


def validate(triples: Sequence[ox.Triple], shapes: rdflib.Graph) -> list[ShapeResult]:
    """The violations of ``triples`` against ``shapes`` (no inference)."""
    import pyshacl

    data = rdflib.Graph()
    if triples:
        data.parse(data=ox.serialize(list(triples), format=ox.RdfFormat.N_TRIPLES),
                   format="nt")
    conforms, report, _ = pyshacl.validate(data, shacl_graph=shapes, inference="none",
                                           abort_on_first=False, allow_warnings=True)
    if conforms:
        return []
    assert isinstance(report, rdflib.Graph)
    found = []
    for result in report.subjects(rdflib.RDF.type, _SH.ValidationResult):
        shape = report.value(result, _SH.sourceShape)
        if isinstance(shape, rdflib.BNode):  # a property shape: name its node shape
            shape = shapes.value(None, _SH.property, shape) or shape
        path = report.value(result, _SH.resultPath)
        found.append(ShapeResult(
            shape=str(shape), focus=str(report.value(result, _SH.focusNode)),
            path=str(path) if isinstance(path, rdflib.URIRef) else None,
            message=str(report.value(result, _SH.resultMessage) or "")))
    return sorted(set(found), key=lambda r: (r.shape, r.focus, r.path or ""))
