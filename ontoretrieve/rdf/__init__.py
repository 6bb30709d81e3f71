"""RDF groundwork every stage shares: the vocabulary, SPARQL text, content hashes, graph adjacency.

``vocab`` names every IRI, predicate set and ``urn:`` scheme; ``sparql`` builds
every query text with escaped IRIs and literals; ``canonical`` hashes an RDF
graph independently of its serialization; ``graph_index`` holds a version's
triples as in-memory adjacency with schema roles.
"""
