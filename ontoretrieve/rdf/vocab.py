"""Every IRI ontoretrieve reads or writes: namespaces, terms, named groups, ``urn:`` schemes.

The one place a W3C (or QUDT, OBO, ...) IRI or an ``urn:ontoretrieve:`` name is
spelled. Terms come as strings (``RDF_TYPE``) and, where stages match them in
pyoxigraph graphs, as nodes (``RDF_TYPE_NODE``). Where two stages deliberately
read a group differently, both sets stand side by side with the reason.

>>> expand_curie("skos:prefLabel") == SKOS_PREF_LABEL
True
>>> expand_curie("http://example.org/p")
'http://example.org/p'
>>> graph_name("ab12")
'urn:ontoretrieve:graph:ab12'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final
from urllib.parse import quote

import pyoxigraph as ox

# ---------------------------------------------------------------------------
# Namespaces
# ---------------------------------------------------------------------------

RDF: Final = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS: Final = "http://www.w3.org/2000/01/rdf-schema#"
OWL: Final = "http://www.w3.org/2002/07/owl#"
XSD: Final = "http://www.w3.org/2001/XMLSchema#"
SKOS: Final = "http://www.w3.org/2004/02/skos/core#"
SKOS_XL: Final = "http://www.w3.org/2008/05/skos-xl#"
SH: Final = "http://www.w3.org/ns/shacl#"
PROV: Final = "http://www.w3.org/ns/prov#"
DC: Final = "http://purl.org/dc/elements/1.1/"
DCTERMS: Final = "http://purl.org/dc/terms/"
DCMI_TYPE: Final = "http://purl.org/dc/dcmitype/"
PAV: Final = "http://purl.org/pav/"
QUDT: Final = "http://qudt.org/schema/qudt/"
OBO: Final = "http://purl.obolibrary.org/obo/"
OBO_IN_OWL: Final = "http://www.geneontology.org/formats/oboInOwl#"
SCHEMA: Final = "http://schema.org/"
SCHEMA_HTTPS: Final = "https://schema.org/"
FOAF: Final = "http://xmlns.com/foaf/0.1/"
OR: Final = "https://w3id.org/ontoretrieve#"
"""ontoretrieve's own vocabulary, used in the catalog metadata graph."""

PREFIXES: Final[dict[str, str]] = {
    "rdf": RDF,
    "rdfs": RDFS,
    "owl": OWL,
    "xsd": XSD,
    "skos": SKOS,
    "dc": DC,
    "dcterms": DCTERMS,
    "qudt": QUDT,
    "oboInOwl": OBO_IN_OWL,
    "obo": OBO,
    "prov": PROV,
    "schema": SCHEMA,
    "foaf": FOAF,
    "sh": SH,
    "or": OR,
}
"""Prefixes settings may use in CURIEs (``expand_curie``)."""

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

# ---------------------------------------------------------------------------
# Terms
# ---------------------------------------------------------------------------

RDF_TYPE: Final = RDF + "type"
RDF_NIL: Final = RDF + "nil"
RDF_FIRST: Final = RDF + "first"
RDF_REST: Final = RDF + "rest"
RDF_PROPERTY: Final = RDF + "Property"
RDF_LIST: Final = RDF + "List"

RDFS_LABEL: Final = RDFS + "label"
RDFS_COMMENT: Final = RDFS + "comment"
RDFS_CLASS: Final = RDFS + "Class"
RDFS_DATATYPE: Final = RDFS + "Datatype"
RDFS_RESOURCE: Final = RDFS + "Resource"
RDFS_SUBCLASS_OF: Final = RDFS + "subClassOf"
RDFS_SUBPROPERTY_OF: Final = RDFS + "subPropertyOf"
RDFS_DOMAIN: Final = RDFS + "domain"
RDFS_RANGE: Final = RDFS + "range"
RDFS_IS_DEFINED_BY: Final = RDFS + "isDefinedBy"
RDFS_SEE_ALSO: Final = RDFS + "seeAlso"

OWL_CLASS: Final = OWL + "Class"
OWL_THING: Final = OWL + "Thing"
OWL_ONTOLOGY: Final = OWL + "Ontology"
OWL_NAMED_INDIVIDUAL: Final = OWL + "NamedIndividual"
OWL_RESTRICTION: Final = OWL + "Restriction"
OWL_DEPRECATED_CLASS: Final = OWL + "DeprecatedClass"
OWL_OBJECT_PROPERTY: Final = OWL + "ObjectProperty"
OWL_DATATYPE_PROPERTY: Final = OWL + "DatatypeProperty"
OWL_ANNOTATION_PROPERTY: Final = OWL + "AnnotationProperty"
OWL_IMPORTS: Final = OWL + "imports"
OWL_VERSION_IRI: Final = OWL + "versionIRI"
OWL_VERSION_INFO: Final = OWL + "versionInfo"
OWL_ON_PROPERTY: Final = OWL + "onProperty"
OWL_EQUIVALENT_CLASS: Final = OWL + "equivalentClass"
OWL_INVERSE_OF: Final = OWL + "inverseOf"
OWL_DISJOINT_WITH: Final = OWL + "disjointWith"
OWL_SOME_VALUES_FROM: Final = OWL + "someValuesFrom"
OWL_ALL_VALUES_FROM: Final = OWL + "allValuesFrom"
OWL_HAS_VALUE: Final = OWL + "hasValue"
OWL_ON_CLASS: Final = OWL + "onClass"

SKOS_CONCEPT: Final = SKOS + "Concept"
SKOS_PREF_LABEL: Final = SKOS + "prefLabel"
SKOS_ALT_LABEL: Final = SKOS + "altLabel"
SKOS_DEFINITION: Final = SKOS + "definition"
SKOS_SCOPE_NOTE: Final = SKOS + "scopeNote"
SKOS_NOTATION: Final = SKOS + "notation"
SKOS_BROADER: Final = SKOS + "broader"
SKOS_NARROWER: Final = SKOS + "narrower"

QUDT_SYMBOL: Final = QUDT + "symbol"
QUDT_UCUM_CODE: Final = QUDT + "ucumCode"
QUDT_PLAIN_TEXT_DESCRIPTION: Final = QUDT + "plainTextDescription"

OBO_DEFINITION: Final = OBO + "IAO_0000115"
"""IAO's "definition", the OBO ontologies' definition annotation."""
OBO_EXACT_SYNONYM: Final = OBO_IN_OWL + "hasExactSynonym"
OBO_RELATED_SYNONYM: Final = OBO_IN_OWL + "hasRelatedSynonym"
OBO_NARROW_SYNONYM: Final = OBO_IN_OWL + "hasNarrowSynonym"
OBO_BROAD_SYNONYM: Final = OBO_IN_OWL + "hasBroadSynonym"

SCHEMA_DOMAIN_INCLUDES: Final = SCHEMA + "domainIncludes"
SCHEMA_RANGE_INCLUDES: Final = SCHEMA + "rangeIncludes"

# ---------------------------------------------------------------------------
# Named groups
# ---------------------------------------------------------------------------

NAME_PREDICATES: Final = (RDFS_LABEL, SKOS_PREF_LABEL)
"""What a term is called, for display (hits, critic queries, slice priority)."""
LABEL_PREDICATES: Final = (*NAME_PREDICATES, SKOS_ALT_LABEL)
"""Every label a term may be found by (the schema role table, endpoint lookups)."""
SYMBOL_PREDICATES: Final = (SKOS_NOTATION, QUDT_SYMBOL, QUDT_UCUM_CODE)
"""What symbolizes a term (units: "mV"); matched with its case."""

OBO_SYNONYMS: Final = (OBO_EXACT_SYNONYM, OBO_RELATED_SYNONYM, OBO_NARROW_SYNONYM,
                       OBO_BROAD_SYNONYM)
"""OBO synonym annotations, strongest kind first."""

ATOM_DESCRIPTION_PREDICATES: Final = (
    SKOS_DEFINITION, OBO_DEFINITION, RDFS_COMMENT, DCTERMS + "description", DC + "description",
    PROV + "definition", SKOS_SCOPE_NOTE)
"""Descriptions that go into an atom's texts, in order of preference. Not the same as
``SCHEMA_DESCRIPTION_PREDICATES``: this set is pinned by the index fingerprint (adding
``qudt:plainTextDescription`` would change the text of every QUDT atom and rebuild every
index), while the role table only orders what a context admits under a tight budget."""
SCHEMA_DESCRIPTION_PREDICATES: Final = (
    RDFS_COMMENT, SKOS_DEFINITION, SKOS_SCOPE_NOTE, OBO_DEFINITION, DCTERMS + "description",
    DC + "description", QUDT_PLAIN_TEXT_DESCRIPTION)
"""Predicates whose statements have the schema role "description" in a context."""

DEPRECATION_PREDICATES: Final = (OWL + "deprecated", QUDT + "deprecated")
"""A term is deprecated (OBO: obsolete) when one of these is ``true`` on it."""
REPLACEMENT_PREDICATES: Final = (OBO + "IAO_0100001", DCTERMS + "isReplacedBy")
"""What names the term that replaces a deprecated one (OBO "term replaced by")."""

PARENT_PREDICATES: Final = (RDFS_SUBCLASS_OF, RDFS_SUBPROPERTY_OF, SKOS_BROADER)
"""What an atom names as its parents."""
HIERARCHY_PREDICATES: Final = (
    RDFS_SUBCLASS_OF, RDFS_SUBPROPERTY_OF, OWL_EQUIVALENT_CLASS, OWL + "equivalentProperty",
    OWL_INVERSE_OF, SKOS_BROADER, SKOS_NARROWER, OWL + "intersectionOf", OWL + "unionOf",
    OWL_DISJOINT_WITH)
"""Predicates whose statements have the schema role "hierarchy" in a context."""
DOMAIN_RANGE_PREDICATES: Final = (RDFS_DOMAIN, RDFS_RANGE, SCHEMA_DOMAIN_INCLUDES,
                                  SCHEMA_RANGE_INCLUDES)
REFERENCE_PREDICATES: Final = (RDFS_SUBCLASS_OF, RDFS_DOMAIN, RDFS_RANGE)
"""The classes a term points to that reference expansion brings along."""
INCOMING_SCHEMA_PREDICATES: Final = (RDFS_SUBCLASS_OF, RDFS_SUBPROPERTY_OF, RDFS_DOMAIN,
                                     RDFS_RANGE)
"""Statements pointing at a term that belong to its description (its children, the
properties whose domain or range it is)."""
DECLARED_REFERENCE_PREDICATES: Final = frozenset({
    RDFS_SUBCLASS_OF, RDFS_SUBPROPERTY_OF, RDFS_DOMAIN, RDFS_RANGE, RDF_TYPE,
    OWL_EQUIVALENT_CLASS, OWL_INVERSE_OF, OWL_ON_PROPERTY, OWL_SOME_VALUES_FROM,
    OWL_ALL_VALUES_FROM, OWL_DISJOINT_WITH})
"""Objects of these must be declared somewhere a tenant reads (proposal checks)."""
RESTRICTION_FILLERS: Final = frozenset(OWL + p for p in (
    "someValuesFrom", "allValuesFrom", "hasValue", "hasSelf", "cardinality", "minCardinality",
    "maxCardinality", "qualifiedCardinality", "minQualifiedCardinality",
    "maxQualifiedCardinality"))
"""What an owl:Restriction needs besides owl:onProperty to say anything."""

PROVENANCE_PREDICATES: Final = frozenset({
    DCTERMS + "created", DCTERMS + "modified", DCTERMS + "creator", DCTERMS + "contributor",
    DCTERMS + "issued", DCTERMS + "date", DCTERMS + "dateSubmitted", DCTERMS + "dateAccepted",
    DC + "creator", DC + "contributor", DC + "date",
    PROV + "wasAttributedTo", PROV + "generatedAtTime", PROV + "wasGeneratedBy",
    PROV + "wasDerivedFrom", OBO_IN_OWL + "created_by", OBO_IN_OWL + "creation_date",
    OBO_IN_OWL + "hasOBONamespace", OBO_IN_OWL + "id", OBO_IN_OWL + "hasDbXref",
    OBO_IN_OWL + "inSubset",
    PAV + "createdBy", PAV + "createdOn", PAV + "authoredBy", PAV + "lastUpdateOn",
})
"""Who made a term and when: never part of its texts or surface forms."""
NON_TEXT_PREDICATES: Final = frozenset({
    RDF_TYPE, RDFS_DOMAIN, RDFS_RANGE, RDFS_IS_DEFINED_BY, RDFS_SEE_ALSO, OWL_VERSION_IRI,
    OWL_IMPORTS, OWL + "priorVersion", OWL + "backwardCompatibleWith", OWL + "incompatibleWith",
    *PARENT_PREDICATES})
"""Handled apart in an atom (types, parents, domain, range) or noise in every atom
(isDefinedBy, version links)."""

ATOM_PROPERTY_TYPES: Final = frozenset({
    RDF_PROPERTY, OWL_OBJECT_PROPERTY, OWL_DATATYPE_PROPERTY, OWL_ANNOTATION_PROPERTY,
    OWL + "FunctionalProperty", OWL + "InverseFunctionalProperty", OWL + "TransitiveProperty",
    OWL + "SymmetricProperty", OWL + "AsymmetricProperty", OWL + "ReflexiveProperty",
    OWL + "IrreflexiveProperty", OWL + "OntologyProperty",
})
"""Types that make an atom a predicate. Without owl:DeprecatedProperty, unlike
``PROPERTY_META_TYPES``: a deprecated property that declares no other property type was
atomized as a resource when the index fingerprints were fixed, and stays so."""
ATOM_GENERIC_TYPES: Final = ATOM_PROPERTY_TYPES | {
    OWL_CLASS, RDFS_CLASS, OWL_NAMED_INDIVIDUAL, OWL_THING, OWL_ONTOLOGY, OWL_RESTRICTION,
    RDFS_DATATYPE, OWL_DEPRECATED_CLASS, RDFS_RESOURCE, SKOS_CONCEPT,
}
"""Types that say nothing about what a term means: left out of its atom texts."""

META_TYPES: Final = frozenset({
    OWL_CLASS, RDFS_CLASS, OWL_OBJECT_PROPERTY, OWL_DATATYPE_PROPERTY, OWL_ANNOTATION_PROPERTY,
    RDF_PROPERTY, OWL + "FunctionalProperty", OWL + "InverseFunctionalProperty",
    OWL + "TransitiveProperty", OWL + "SymmetricProperty", OWL + "AsymmetricProperty",
    OWL + "ReflexiveProperty", OWL + "IrreflexiveProperty", OWL_ONTOLOGY, OWL_NAMED_INDIVIDUAL,
    OWL_RESTRICTION, RDFS_DATATYPE, OWL_THING, OWL_DEPRECATED_CLASS, OWL + "DeprecatedProperty",
    OWL + "AllDisjointClasses", OWL + "Axiom", RDF_LIST, OWL + "OntologyProperty",
})
"""Types that say what kind of term something is, not which class it belongs to."""
CLASS_TYPES: Final = frozenset({OWL_CLASS, RDFS_CLASS})
PROPERTY_META_TYPES: Final = frozenset(t for t in META_TYPES if t.endswith("Property"))
"""The meta types of properties, owl:DeprecatedProperty included (see
``ATOM_PROPERTY_TYPES``)."""
SUBSUMED_TYPES: Final[dict[str, frozenset[str] | None]] = {
    RDFS_CLASS: frozenset({OWL_CLASS}),
    RDF_PROPERTY: frozenset({OWL_OBJECT_PROPERTY, OWL_DATATYPE_PROPERTY,
                             OWL_ANNOTATION_PROPERTY}),
    OWL_NAMED_INDIVIDUAL: None,
    OWL_THING: None,
}
"""A generic type, and the more specific types that make it say nothing (None: any
other type does, as for owl:NamedIndividual and owl:Thing)."""

ATOMIZE_SKIPPED_NAMESPACES: Final = (
    RDF, RDFS, OWL, XSD, SKOS, SKOS_XL, DC, DCTERMS, DCMI_TYPE, PROV, FOAF, SH, SCHEMA,
    SCHEMA_HTTPS,
)
"""Vocabularies whose own terms are never atoms: a text naming "label" or "agent" should
not seed rdfs:label or prov:Agent (``index.embed_standard_vocab_iris`` lifts this)."""
NEVER_EXPANDED_NAMESPACES: Final = (RDF, RDFS, OWL, XSD, SKOS, SH, DC, DCTERMS)
"""Vocabularies a context never expands into: every class is an owl:Class, so walking into
owl:Class would connect everything. Narrower than ``ATOMIZE_SKIPPED_NAMESPACES`` on
purpose: a catalog that uses PROV, FOAF or schema.org terms in its own axioms gets their
definitions when a seed points at them, although a text never seeds them directly."""

# ---------------------------------------------------------------------------
# The same terms as pyoxigraph nodes, for stages that match on graphs
# ---------------------------------------------------------------------------


def nodes(iris: Iterable[str]) -> frozenset[ox.NamedNode]:
    """The IRIs as a set of pyoxigraph named nodes.

    >>> sorted(n.value for n in nodes([OWL_CLASS])) == [OWL_CLASS]
    True
    """
    return frozenset(ox.NamedNode(iri) for iri in iris)


RDF_TYPE_NODE: Final = ox.NamedNode(RDF_TYPE)
RDFS_LABEL_NODE: Final = ox.NamedNode(RDFS_LABEL)
SUBCLASS_OF_NODE: Final = ox.NamedNode(RDFS_SUBCLASS_OF)
DOMAIN_NODE: Final = ox.NamedNode(RDFS_DOMAIN)
RANGE_NODE: Final = ox.NamedNode(RDFS_RANGE)
SKOS_NOTATION_NODE: Final = ox.NamedNode(SKOS_NOTATION)
OWL_RESTRICTION_NODE: Final = ox.NamedNode(OWL_RESTRICTION)
OWL_ONTOLOGY_NODE: Final = ox.NamedNode(OWL_ONTOLOGY)
OWL_ON_PROPERTY_NODE: Final = ox.NamedNode(OWL_ON_PROPERTY)
OWL_DISJOINT_WITH_NODE: Final = ox.NamedNode(OWL_DISJOINT_WITH)
RDF_FIRST_NODE: Final = ox.NamedNode(RDF_FIRST)
RDF_REST_NODE: Final = ox.NamedNode(RDF_REST)
META_TYPE_NODES: Final = nodes(META_TYPES)
CLASS_TYPE_NODES: Final = nodes(CLASS_TYPES)
PROPERTY_TYPE_NODES: Final = nodes(PROPERTY_META_TYPES)

# ---------------------------------------------------------------------------
# ontoretrieve's own names (urn:ontoretrieve:)
# ---------------------------------------------------------------------------

CATALOG_GRAPH: Final = "urn:ontoretrieve:catalog"
"""The named graph that records every ontology version of the default tenant's catalog."""
LAST_LOAD_STATE: Final = "urn:ontoretrieve:state:last-load"
"""The subject, in a catalog graph, of what the last load reported."""
OWNER_PREDICATE: Final = "urn:ontoretrieve:in"
"""A made-up predicate a CONSTRUCT uses to say which version graph a statement came from."""


def graph_name(content_hash: str) -> str:
    """The named graph holding one ontology version's triples."""
    return f"urn:ontoretrieve:graph:{content_hash}"


def layer_graph_name(content_hash: str) -> str:
    """The named graph of what a version stored as a layer adds to its base's graph.

    >>> layer_graph_name("ab12")
    'urn:ontoretrieve:layer:ab12'
    """
    return f"urn:ontoretrieve:layer:{content_hash}"


def tenant_catalog_graph(tenant: str) -> str:
    """The catalog graph of a tenant other than the default one.

    >>> tenant_catalog_graph("acme-labs")
    'urn:ontoretrieve:tenant:acme-labs:catalog'
    """
    return f"urn:ontoretrieve:tenant:{tenant}:catalog"


def version_node(source_key: str, content_hash: str) -> str:
    """The catalog graph's node for one version of one source (``source_key`` quoted)."""
    return f"urn:ontoretrieve:version:{source_key}:{content_hash[:32]}"


def derived_ontology_iri(name: str) -> str:
    """The IRI given to an ontology file that declares none, from its catalog path.

    >>> derived_ontology_iri("vocab/my onto")
    'urn:ontoretrieve:ontology:vocab/my%20onto'
    """
    return f"urn:ontoretrieve:ontology:{quote(name)}"


def namespace_of(iri: str) -> str:
    """The IRI up to its last "#" or "/" (empty when the rest would be empty): what a
    Turtle prefix stands for; the rest is the local name Turtle shows.

    >>> namespace_of("http://qudt.org/vocab/unit/MilliV"), namespace_of("urn:x:y")
    ('http://qudt.org/vocab/unit/', '')
    """
    cut = max(iri.rfind("#"), iri.rfind("/"))
    return iri[: cut + 1] if 0 < cut < len(iri) - 1 and "://" in iri[:cut] else ""


def expand_curie(value: str) -> str:
    """Expand ``prefix:local`` with a known prefix; return anything else unchanged."""
    prefix, sep, local = value.partition(":")
    if sep and prefix in PREFIXES and not local.startswith("//"):
        return PREFIXES[prefix] + local
    return value
