"""A LlamaIndex retriever over an ``Engine``: one ``TextNode`` per term.

Needs ``llama-index-core`` (``pip install 'ontoretrieve[llamaindex]'``)::

    from ontoretrieve import Engine
    from ontoretrieve.integrations.llama_index import OntologyRetriever

    retriever = OntologyRetriever(Engine.open(), k=5)
    for hit in retriever.retrieve("The probe recorded a 5 mV signal."):
        print(hit.node.metadata["iri"], hit.score, hit.node.get_content())

``retrieve`` and ``aretrieve`` work as for any LlamaIndex retriever (the async
one runs the engine in a worker thread), so it plugs into a query engine.
"""

from __future__ import annotations

from typing import Any

try:
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("the LlamaIndex retriever needs llama-index-core: "
                      "pip install 'ontoretrieve[llamaindex]'") from exc

from ontoretrieve.engine import DEFAULT_DOCUMENT_TOKENS, DEFAULT_DOCUMENTS, Engine
from ontoretrieve.engine.documents import TermDocument
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.settings.tenants import DEFAULT_TENANT

__all__ = ["OntologyRetriever"]


class OntologyRetriever(BaseRetriever):
    """The terms of a text's ontology context as LlamaIndex nodes, best first."""

    def __init__(self, engine: Engine, k: int = DEFAULT_DOCUMENTS, *,
                 tenant: str = DEFAULT_TENANT,
                 max_tokens: int | None = DEFAULT_DOCUMENT_TOKENS, mode: str = "auto",
                 **kwargs: Any) -> None:
        if k < 1:
            raise OntoRetrieveError(f"k must be at least 1, not {k}")
        super().__init__(**kwargs)
        self.engine, self.k, self.tenant = engine, k, tenant
        self.max_tokens, self.mode = max_tokens, mode

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        terms = self.engine.documents(query_bundle.query_str, **self._options())
        return [_node(term) for term in terms]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        terms = await self.engine.adocuments(query_bundle.query_str, **self._options())
        return [_node(term) for term in terms]

    def _options(self) -> dict[str, Any]:
        return {"k": self.k, "tenant": self.tenant, "mode": self.mode,
                "max_tokens": self.max_tokens}


def _node(term: TermDocument) -> NodeWithScore:
    node = TextNode(id_=term.iri, text=term.text(), metadata=term.metadata(),
                    # The Turtle block is for the prompt, not for an embedder's input.
                    excluded_embed_metadata_keys=["turtle"])
    return NodeWithScore(node=node, score=term.score)
