"""A LangChain retriever over an ``Engine``: one ``Document`` per term.

Needs ``langchain-core`` (``pip install 'ontoretrieve[langchain]'``)::

    from ontoretrieve import Engine
    from ontoretrieve.integrations.langchain import OntologyRetriever

    retriever = OntologyRetriever(engine=Engine.open(), k=5)
    for doc in retriever.invoke("The probe recorded a 5 mV signal."):
        print(doc.metadata["iri"], doc.page_content)

``invoke``, ``batch``, ``ainvoke`` and ``abatch`` work as for any LangChain
retriever (the async ones run the engine in a worker thread); ``k`` can also be
given per call: ``retriever.invoke(text, k=2)``.
"""

from __future__ import annotations

from typing import Any

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("the LangChain retriever needs langchain-core: "
                      "pip install 'ontoretrieve[langchain]'") from exc
from pydantic import ConfigDict, Field

from ontoretrieve.engine import DEFAULT_DOCUMENT_TOKENS, DEFAULT_DOCUMENTS, Engine
from ontoretrieve.engine.documents import TermDocument
from ontoretrieve.settings.tenants import DEFAULT_TENANT

__all__ = ["OntologyRetriever"]


class OntologyRetriever(BaseRetriever):
    """The terms of a text's ontology context as LangChain documents, best first."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    engine: Engine
    k: int = Field(default=DEFAULT_DOCUMENTS, ge=1, description="Terms to return.")
    tenant: str = DEFAULT_TENANT
    max_tokens: int | None = Field(
        default=DEFAULT_DOCUMENT_TOKENS, ge=1,
        description="Budget of the context the terms are cut from (None: grows with the text).")
    mode: str = "auto"

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun,
                                **kwargs: Any) -> list[Document]:
        terms = self.engine.documents(query, **self._options(kwargs))
        return [_document(term) for term in terms]

    async def _aget_relevant_documents(self, query: str, *,
                                       run_manager: AsyncCallbackManagerForRetrieverRun,
                                       **kwargs: Any) -> list[Document]:
        terms = await self.engine.adocuments(query, **self._options(kwargs))
        return [_document(term) for term in terms]

    def _options(self, overrides: dict[str, Any]) -> dict[str, Any]:
        return {"k": int(overrides.get("k", self.k)), "tenant": self.tenant,
                "mode": self.mode, "max_tokens": self.max_tokens}


def _document(term: TermDocument) -> Document:
    return Document(page_content=term.text(), metadata=term.metadata(), id=term.iri)
