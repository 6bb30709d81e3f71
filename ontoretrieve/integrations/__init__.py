"""Retrievers for the frameworks extraction pipelines are written in.

Optional extras: ``pip install 'ontoretrieve[langchain]'`` for
``ontoretrieve.integrations.langchain.OntologyRetriever`` and
``'ontoretrieve[llamaindex]'`` for
``ontoretrieve.integrations.llama_index.OntologyRetriever``. Both are thin
shells over ``Engine.documents``: one document per term of the text's
context, best first, with the IRI, label, definition and Turtle block as
metadata.
"""
