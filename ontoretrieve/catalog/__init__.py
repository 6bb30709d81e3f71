"""The catalog: ontology files, and the ontology versions kept as named graphs.

Stage 1 of the pipeline. ``files`` discovers, parses and identifies ontology
files (pure); ``store`` keeps the versions and their metadata graph in a
triple store (``Catalog``); ``reader`` is how retrieval reads the catalog back
(targeted SELECT, cached graphs or SPARQL pushdown); ``watch`` polls a folder
and refreshes the catalog when it settles.
"""
