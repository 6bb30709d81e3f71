"""Namespaces ontoretrieve knows by prefix, and the IRIs it reads and writes.

>>> expand_curie("skos:prefLabel")
'http://www.w3.org/2004/02/skos/core#prefLabel'
>>> expand_curie("http://example.org/p")
'http://example.org/p'
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "CATALOG_GRAPH",
    "NAME_PREDICATES",
    "OR",
    "OWL",
    "PREFIXES",
    "RDF",
    "RDFS",
    "SKOS",
    "WELL_KNOWN_PREFIXES",
    "XSD",
    "expand_curie",
]

RDF: Final = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS: Final = "http://www.w3.org/2000/01/rdf-schema#"
OWL: Final = "http://www.w3.org/2002/07/owl#"
XSD: Final = "http://www.w3.org/2001/XMLSchema#"
OR: Final = "https://w3id.org/ontoretrieve#"
"""ontoretrieve's own vocabulary, used in the catalog metadata graph."""

SKOS: Final = "http://www.w3.org/2004/02/skos/core#"
NAME_PREDICATES: Final = (RDFS + "label", SKOS + "prefLabel")
"""What a term is called, for display (hits, critic queries, slice priority)."""

CATALOG_GRAPH: Final = "urn:ontoretrieve:catalog"
"""The named graph that records every ontology version of the catalog."""

PREFIXES: Final[dict[str, str]] = {
    "rdf": RDF,
    "rdfs": RDFS,
    "owl": OWL,
    "xsd": XSD,
    "skos": SKOS,
    "dc": "http://purl.org/dc/elements/1.1/",
    "dcterms": "http://purl.org/dc/terms/",
    "qudt": "http://qudt.org/schema/qudt/",
    "oboInOwl": "http://www.geneontology.org/formats/oboInOwl#",
    "obo": "http://purl.obolibrary.org/obo/",
    "prov": "http://www.w3.org/ns/prov#",
    "schema": "http://schema.org/",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "sh": "http://www.w3.org/ns/shacl#",
    "or": OR,
}


WELL_KNOWN_PREFIXES: Final[dict[str, str]] = {
    **PREFIXES,
    "unit": "http://qudt.org/vocab/unit/",
    "quantitykind": "http://qudt.org/vocab/quantitykind/",
    "qkdv": "http://qudt.org/vocab/dimensionvector/",
    "sou": "http://qudt.org/vocab/sou/",
    "time": "http://www.w3.org/2006/time#",
    "sosa": "http://www.w3.org/ns/sosa/",
    "ssn": "http://www.w3.org/ns/ssn/",
    "geo": "http://www.opengis.net/ont/geosparql#",
    "dcat": "http://www.w3.org/ns/dcat#",
    "vcard": "http://www.w3.org/2006/vcard/ns#",
    "sioc": "http://rdfs.org/sioc/ns#",
    "doap": "http://usefulinc.com/ns/doap#",
    "gr": "http://purl.org/goodrelations/v1#",
    "saref": "https://saref.etsi.org/core/",
    "cito": "http://purl.org/spar/cito/",
    "fabio": "http://purl.org/spar/fabio/",
    "oa": "http://www.w3.org/ns/oa#",
    "ontolex": "http://www.w3.org/ns/lemon/ontolex#",
}
"""Prefixes a context's Turtle may bind (only those in use), beyond the ones ontoretrieve
reads: the namespaces of widely used vocabularies, so a prompt spends no tokens on them.
Not used to expand CURIEs in settings (``PREFIXES`` is)."""


def expand_curie(value: str) -> str:
    """Expand ``prefix:local`` with a known prefix; return anything else unchanged."""
    prefix, sep, local = value.partition(":")
    if sep and prefix in PREFIXES and not local.startswith("//"):
        return PREFIXES[prefix] + local
    return value
