"""The LangChain and LlamaIndex retrievers with the real packages, and the async API.

LangChain's own standard suite (``langchain-tests``: invoke, ``k`` in the
constructor and per call, ainvoke) runs on ``OntologyRetriever``; batch and
abatch, and LlamaIndex's retrieve/aretrieve, are checked here against the
engine's own ``documents``.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pyoxigraph as ox
import pytest
from langchain_core.documents import Document
from langchain_tests.integration_tests import RetrieversIntegrationTests

from ontoretrieve import Engine, OntoRetrieveError, load_settings
from ontoretrieve.integrations import langchain as lc
from ontoretrieve.integrations import llama_index as li
from tests.support import FIXTURES

pytestmark = pytest.mark.integration

QUERY = "The probe recorded a 5 mV signal for 4 days; a sensor observes a property."


@functools.cache
def _engine() -> Engine:
    """One engine over the units subset and the mini ontology for the whole module."""
    folder = Path(tempfile.mkdtemp(prefix="frameworks-"))
    engine = Engine.open(load_settings(data_dir=folder / "data"))
    for name in ("qudt-units-subset.ttl", "mini.ttl"):
        shutil.copy(FIXTURES / name, folder / name)
    engine.catalog_load(folder)
    atexit.register(lambda: (engine.close(), shutil.rmtree(folder, ignore_errors=True)))
    return engine


class TestLangChainStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[lc.OntologyRetriever]:
        return lc.OntologyRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, object]:
        return {"engine": _engine()}

    @property
    def retriever_query_example(self) -> str:
        return QUERY


def test_langchain_documents_carry_the_term_and_its_turtle() -> None:
    retriever = lc.OntologyRetriever(engine=_engine(), k=4)
    documents = retriever.invoke(QUERY)
    expected = _engine().documents(QUERY, 4)
    assert [d.metadata["iri"] for d in documents] == [t.iri for t in expected]
    assert [d.id for d in documents] == [t.iri for t in expected]
    for document in documents:
        assert isinstance(document, Document) and document.page_content
        block = list(ox.parse(document.metadata["turtle"].encode(), format=ox.RdfFormat.TURTLE))
        assert any(t.subject.value == document.metadata["iri"] for t in block)
        assert {"label", "definition", "kind", "score", "ontology"} <= set(document.metadata)
    assert "http://qudt.org/vocab/unit/MilliV" in {d.metadata["iri"] for d in documents}


def test_langchain_batch_and_abatch_equal_invoke() -> None:
    retriever = lc.OntologyRetriever(engine=_engine(), k=3)
    texts = [QUERY, "a sensor observes a property"]
    one_by_one = [[d.metadata["iri"] for d in retriever.invoke(t)] for t in texts]
    batched = [[d.metadata["iri"] for d in ds] for ds in retriever.batch(texts)]
    awaited = [[d.metadata["iri"] for d in ds]
               for ds in asyncio.run(retriever.abatch(texts))]
    assert one_by_one == batched == awaited


def test_llama_index_retrieve_and_aretrieve_return_scored_nodes() -> None:
    retriever = li.OntologyRetriever(_engine(), k=3)
    nodes = retriever.retrieve(QUERY)
    assert len(nodes) == 3
    assert [n.node.node_id for n in nodes] == [t.iri for t in _engine().documents(QUERY, 3)]
    assert all(n.node.metadata["turtle"] and n.node.get_content() for n in nodes)
    assert "turtle" not in nodes[0].node.get_content(metadata_mode="embed")  # type: ignore[arg-type]
    assert nodes[0].score is not None
    texts = [QUERY, "a sensor observes a property"]

    async def both() -> list[list[str]]:
        found = await asyncio.gather(*(retriever.aretrieve(t) for t in texts))
        return [[n.node.node_id for n in hits] for hits in found]

    assert asyncio.run(both()) == [[n.node.node_id for n in retriever.retrieve(t)]
                                   for t in texts]


def test_async_engine_calls_answer_as_the_blocking_ones() -> None:
    engine = _engine()

    async def calls() -> tuple[object, ...]:
        return await asyncio.gather(engine.aretrieve(QUERY, max_tokens=800),
                                    engine.aslice(QUERY, 300), engine.alookup("mV"))

    context, cut, lookup = asyncio.run(calls())
    assert context.terms == engine.retrieve(QUERY, max_tokens=800).terms  # type: ignore[attr-defined]
    assert cut == engine.slice(QUERY, 300)
    assert lookup == engine.lookup("mV")


def test_bad_k_is_a_clear_error() -> None:
    with pytest.raises(OntoRetrieveError, match="k must be at least 1"):
        li.OntologyRetriever(_engine(), k=0)
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        lc.OntologyRetriever(engine=_engine(), k=0)


def _readme_examples() -> list[str]:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### LangChain and LlamaIndex", 1)[1].split("\n### ", 1)[0]
    return section.split("```python\n")[1:]


@pytest.mark.parametrize("index", [0, 1])
def test_the_readme_examples_run(index: int, tmp_path: Path) -> None:
    example = _readme_examples()[index].split("```", 1)[0]
    # The examples open the default data dir (.ontoretrieve): this module's engine's,
    # which this process writes, so they read beside it as a second process would.
    (tmp_path / ".ontoretrieve").symlink_to(_engine().settings.data_dir)
    done = subprocess.run([sys.executable, "-c", example],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr
    # A unit term's Turtle (its namespace written out when a prefix line would not pay).
    assert "@prefix" in done.stdout and ("unit:" in done.stdout
                                         or "<http://qudt.org/vocab/unit/" in done.stdout)
