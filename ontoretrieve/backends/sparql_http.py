"""Any SPARQL 1.1 endpoint: SPARQLWrapper for queries and updates, the Graph
Store Protocol for whole-graph loads.

Tested against a real ``oxigraph serve``; it speaks only the standard
protocols, so Fuseki, GraphDB and Virtuoso work unchanged. Results are parsed
by pyoxigraph so terms come back as the same types the embedded store returns.
"""

from __future__ import annotations

import urllib.error
from collections.abc import Sequence

import httpx
import pyoxigraph as ox
from SPARQLWrapper import JSON, POST, TURTLE, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import SPARQLWrapperException

from ontoretrieve.backends.triple_store import Solution, Statement, interned
from ontoretrieve.errors import StoreQueryError, StoreUnavailableError
from ontoretrieve.rdf.graph_index import as_triples

__all__ = ["SparqlHttpStore"]


class SparqlHttpStore:
    """A ``TripleStore`` over HTTP.

    ``update_url`` and ``graph_store_url`` default to the query URL with its
    last path segment replaced by ``update`` and ``store`` (Oxigraph's and
    Fuseki's layout).
    """

    def __init__(
        self,
        query_url: str,
        update_url: str | None = None,
        graph_store_url: str | None = None,
        timeout_seconds: float = 30.0,
    ) -> None:
        base = query_url.rsplit("/", 1)[0]
        self.query_url = query_url
        self.update_url = update_url or f"{base}/update"
        self.graph_store_url = graph_store_url or f"{base}/store"
        self.timeout_seconds = timeout_seconds
        self._http = httpx.Client(timeout=timeout_seconds)

    @property
    def description(self) -> str:
        return self.query_url

    def replace_graph(self, graph: str,
                      triples: Sequence[ox.Triple] | Sequence[Statement]) -> None:
        body = ox.serialize(as_triples(triples), format=ox.RdfFormat.N_TRIPLES) or b""
        self._gsp("PUT", graph, content=body, headers={"Content-Type": "application/n-triples"})

    def drop_graph(self, graph: str) -> None:
        self._gsp("DELETE", graph, missing_ok=True)

    def graph_triples(self, graph: str) -> list[ox.Triple]:
        response = self._gsp("GET", graph, headers={"Accept": "application/n-triples"},
                             missing_ok=True)
        if response.status_code == 404 or not response.content:
            return []
        try:
            return [q.triple for q in ox.parse(response.content,
                                               format=ox.RdfFormat.N_TRIPLES)]
        except SyntaxError as exc:
            raise StoreQueryError(f"{self.graph_store_url}: unreadable graph {graph}: "
                                  f"{exc}") from exc

    def graph_statements(self, graph: str) -> list[Statement]:
        return interned(self.graph_triples(graph))

    def select(self, query: str) -> list[Solution]:
        raw = self._query(query, JSON)
        try:  # results parse lazily: a bad answer can fail anywhere in the loop
            results = ox.parse_query_results(raw, format=ox.QueryResultsFormat.JSON)
            if not isinstance(results, ox.QuerySolutions):
                raise StoreQueryError(f"not a SELECT query: {query[:80]}")
            names = [v.value for v in results.variables]
            return [
                {name: solution[name] for name in names if solution[name] is not None}
                for solution in results
            ]
        except SyntaxError as exc:
            raise StoreQueryError(f"{self.query_url}: unreadable SELECT result: {exc}") from exc

    def construct(self, query: str) -> list[ox.Triple]:
        raw = self._query(query, TURTLE)
        try:
            return [q.triple for q in ox.parse(raw, format=ox.RdfFormat.TURTLE)]
        except SyntaxError as exc:
            raise StoreQueryError(f"{self.query_url}: unreadable CONSTRUCT result: {exc}") from exc

    def update(self, update: str) -> None:
        wrapper = SPARQLWrapper(self.query_url, updateEndpoint=self.update_url)
        wrapper.setTimeout(int(self.timeout_seconds))
        wrapper.setMethod(POST)
        wrapper.setQuery(update)
        self._run(wrapper, update)

    def close(self) -> None:
        self._http.close()

    def _query(self, query: str, return_format: str) -> bytes:
        wrapper = SPARQLWrapper(self.query_url)
        wrapper.setTimeout(int(self.timeout_seconds))
        wrapper.setMethod(POST)
        wrapper.setReturnFormat(return_format)
        wrapper.setQuery(query)
        return self._run(wrapper, query)

    def _run(self, wrapper: SPARQLWrapper, text: str) -> bytes:
        try:
            response = wrapper.query().response
            return bytes(response.read())
        except SPARQLWrapperException as exc:
            raise StoreQueryError(f"{self.query_url} rejected: {exc} -- {text[:200]}") from exc
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")[:300]
            raise StoreQueryError(f"{exc.url}: HTTP {exc.code}: {detail}") from exc
        except (TimeoutError, urllib.error.URLError, ConnectionError, OSError) as exc:
            raise StoreUnavailableError(f"{self.query_url} unreachable: {exc}") from exc

    def _gsp(
        self,
        method: str,
        graph: str,
        *,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
        missing_ok: bool = False,
    ) -> httpx.Response:
        try:
            response = self._http.request(
                method, self.graph_store_url, params={"graph": graph},
                content=content, headers=headers,
            )
        except httpx.HTTPError as exc:
            raise StoreUnavailableError(f"{self.graph_store_url} unreachable: {exc}") from exc
        if response.status_code == 404 and missing_ok:
            return response
        if response.status_code >= 400:
            raise StoreQueryError(
                f"{method} {self.graph_store_url}?graph={graph}: HTTP "
                f"{response.status_code}: {response.text[:300]}"
            )
        return response
