"""Batch retrieval with the real model and stores: equal to one-by-one, text for text."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ontoretrieve.context.model import Context
from ontoretrieve.engine import Engine
from ontoretrieve.engine.annotate import annotate_file, units_left
from ontoretrieve.engine.annotate_workers import WorkerPool
from ontoretrieve.engine.results import RetrieveResult
from ontoretrieve.engine.workers import EnginePool
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.index.embed import FastEmbedder
from ontoretrieve.settings import load_settings
from ontoretrieve.settings.groups import EmbedSettings
from tests.support import FIXTURES, refuse_to_start, task_echo, tenants_of

pytestmark = pytest.mark.integration

TEXTS = [
    "The keeper feeds the cat, which eats a mouse and lives in a big cage.",
    "The probe recorded a 5 mV signal for 4-15 days.",
    "A lion and a mouse.",
    "",
    "asdfghjkl",
    "The probe recorded a 5 mV signal for 4-15 days.",  # a repeat
    " ".join(["The zookeeper measured the cage at 3 metres and the water at 20 degrees "
              "Celsius, then weighed the cat in kilograms."] * 6),  # several windows
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    folder = tmp_path_factory.mktemp("batch") / "catalog"
    folder.mkdir()
    for name in ("zoo.ttl", "ext.ttl"):
        shutil.copy(FIXTURES / "context" / name, folder)
    shutil.copy(FIXTURES / "qudt-units-subset.ttl", folder)
    settings = load_settings(data_dir=tmp_path_factory.mktemp("batch-data"))
    with Engine.open(settings) as opened:
        opened.catalog_load(folder)
        yield opened


def _result(context: Context) -> dict[str, object]:
    """What a retrieval answers: all but timings and the catalog caches' hit counters
    (a second retrieval of one text finds the caches warm, batch or not)."""
    dumped = context.model_dump(exclude={"seconds"})
    dumped["metrics"] = {k: v for k, v in dumped["metrics"].items()
                         if not k.endswith(("cache_hits", "cache_misses"))}
    return dumped


def _same(one: Context, other: Context) -> None:
    assert _result(one) == _result(other)


@pytest.mark.parametrize("mode", ["auto", "vector"])
def test_retrieve_many_equals_retrieve_one_by_one(engine: Engine, mode: str) -> None:
    engine.cache.clear("default")
    singles = [engine.retrieve(text, mode=mode) for text in TEXTS]
    engine.cache.clear("default")  # the batch must compute, not read the cache
    batch = engine.retrieve_many(TEXTS, mode=mode)
    assert len(batch) == len(TEXTS)
    for one, other in zip(singles, batch, strict=True):
        _same(one, other)
    assert any(c.seeds for c in batch)


def test_retrieve_many_scoped_and_budgeted(engine: Engine) -> None:
    texts = TEXTS[:3]
    engine.cache.clear("default")
    singles = [engine.retrieve(t, mode="vector", ontologies=["zoo"], max_tokens=300)
               for t in texts]
    engine.cache.clear("default")
    for one, other in zip(singles, engine.retrieve_many(
            texts, mode="vector", ontologies=["zoo"], max_tokens=300), strict=True):
        _same(one, other)


def test_query_vectors_do_not_depend_on_their_batch(real_embedder: FastEmbedder) -> None:
    texts = [t for t in TEXTS if t] + ["cat", "a much longer query about cages and keepers"]
    alone = np.stack([real_embedder.embed_queries([t])[0] for t in texts])
    assert np.array_equal(real_embedder.embed_queries(texts), alone)  # bit for bit


def test_query_vectors_do_not_depend_on_the_encoders_threads(real_embedder: FastEmbedder,
                                                            model_cache: Path) -> None:
    # annotate --workers gives each worker a share of the cores (embed.threads): its
    # vectors, hence its contexts, must be those of an encoder on every core.
    texts = [t for t in TEXTS if t] + ["cat", "a much longer query about cages and keepers"]
    one_thread = FastEmbedder(EmbedSettings(threads=1), model_cache)
    assert np.array_equal(one_thread.embed_queries(texts), real_embedder.embed_queries(texts))
    assert np.array_equal(one_thread.embed_documents(texts),
                          real_embedder.embed_documents(texts))


def test_retrieve_many_refuses_one_string(engine: Engine) -> None:
    with pytest.raises(OntoRetrieveError, match="list of texts"):
        engine.retrieve_many("one text")


def test_a_batch_encodes_and_searches_once_per_kind(engine: Engine,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    retriever = engine._retriever(engine._tenant("default"))
    seeds = retriever.seed_retriever
    calls: list[str] = []
    embed, search = seeds.embedder.embed_queries, seeds.index.search

    def counting_embed(texts: list[str]) -> object:
        calls.append("embed")
        return embed(texts)

    def counting_search(*args: object, **kwargs: object) -> object:
        calls.append("search")
        return search(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(seeds.embedder, "embed_queries", counting_embed)
    monkeypatch.setattr(seeds.index, "search", counting_search)
    engine.cache.clear("default")
    texts = [t for t in TEXTS if t.strip()]
    engine.retrieve_many(texts, mode="vector")
    # One encoding of every window and span word; one search per lane (core, neighbourhood,
    # BM25) and one for the span words: nothing per text.
    assert calls.count("embed") == 1
    assert calls.count("search") <= 4


def test_a_batch_asks_the_store_about_its_seeds_once(engine: Engine,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # Deprecation facts and class references are read for the seeds of every text of
    # the batch together: two SELECTs, where a loop asks two a text.
    retriever = engine._retriever(engine._tenant("default"))
    store = retriever.reader.store
    selects: list[str] = []
    select = store.select

    def counting_select(query: str) -> object:
        selects.append(query)
        return select(query)

    monkeypatch.setattr(store, "select", counting_select)
    texts = [t for t in dict.fromkeys(TEXTS) if t.strip() and t != "asdfghjkl"]
    engine.cache.clear("default")
    singles = [engine.retrieve(text, mode="vector") for text in texts]
    alone = len(selects)
    assert alone >= 2 * len(texts)
    selects.clear()
    engine.cache.clear("default")
    for one, other in zip(singles, engine.retrieve_many(texts, mode="vector"), strict=True):
        _same(one, other)
    assert len(selects) == 2, selects


def _units_file(path: Path, texts: list[str], *, bad: bool = False) -> Path:
    lines = [json.dumps({"id": f"u{i}", "text": t}) for i, t in enumerate(texts)]
    if bad:
        lines[1:1] = ["not json", json.dumps({"id": "no-text"}), ""]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_annotate_writes_one_line_per_unit_equal_to_retrieve(engine: Engine,
                                                              tmp_path: Path) -> None:
    texts = [t for t in TEXTS if t.strip()]
    units = _units_file(tmp_path / "units.jsonl", texts, bad=True)
    out = tmp_path / "out.jsonl"
    engine.cache.clear("default")
    report = annotate_file(engine, units, out, tenant="default", mode="vector", batch=2)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert (report.units, report.annotated, report.failed) == (len(texts) + 2,) * 2 + (2,)
    failed = {r["line"]: r["error"]["message"] for r in rows if not r["ok"]}
    assert failed == {2: failed[2], 3: 'line 3: no "text" string'}
    assert failed[2].startswith("line 2: not a JSON object")
    engine.cache.clear("default")
    by_id = {r["id"]: r for r in rows if r["ok"]}
    for i, text in enumerate(texts):
        single = engine.retrieve(text, mode="vector")
        row = by_id[f"u{i}"]
        assert row["turtle"] == single.serialize("turtle")
        fields = {k: v for k, v in row.items() if k not in ("id", "line", "ok", "turtle")}
        assert _without_timings(fields) == _without_timings(
            RetrieveResult.of(single).model_dump(mode="json", exclude={"turtle"}))


def _without_timings(dumped: dict[str, Any]) -> dict[str, Any]:
    metrics = {k: v for k, v in dumped["metrics"].items()
               if not k.endswith(("cache_hits", "cache_misses"))}
    return {**{k: v for k, v in dumped.items() if k != "seconds"}, "metrics": metrics}


def test_annotate_resumes_after_an_interruption(engine: Engine, tmp_path: Path) -> None:
    texts = [f"A cat and a mouse, number {i}." for i in range(7)]
    units = _units_file(tmp_path / "units.jsonl", texts)
    out = tmp_path / "out.jsonl"
    annotate_file(engine, units, out, tenant="default", batch=3, turtle=False)
    complete = out.read_text(encoding="utf-8").splitlines()
    # A killed run: four whole lines and half of the fifth.
    out.write_text("\n".join(complete[:4]) + "\n" + complete[4][:40], encoding="utf-8")
    report = annotate_file(engine, units, out, tenant="default", batch=3, turtle=False)
    assert (report.kept, report.annotated, report.failed) == (4, 3, 0)
    resumed = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in resumed] == [f"u{i}" for i in range(7)]


def test_annotate_with_workers_writes_the_same_file(engine: Engine, tmp_path: Path) -> None:
    texts = [t for t in TEXTS if t.strip()] + [f"A cat and a mouse, number {i}." for i in range(5)]
    units = _units_file(tmp_path / "units.jsonl", texts, bad=True)
    alone, pooled = tmp_path / "alone.jsonl", tmp_path / "pooled.jsonl"
    engine.cache.clear("default")
    annotate_file(engine, units, alone, tenant="default", batch=2)
    with WorkerPool(engine.settings, 2) as pool:  # readers beside this writing engine
        report = annotate_file(engine, units, pooled, tenant="default", batch=2, workers=pool)
    assert (report.annotated, report.failed) == (len(texts) + 2, 2)
    rows = [json.loads(line) for line in alone.read_text(encoding="utf-8").splitlines()]
    again = [json.loads(line) for line in pooled.read_text(encoding="utf-8").splitlines()]
    assert [r["line"] for r in again] == [r["line"] for r in rows]  # input order
    for one, other in zip(rows, again, strict=True):
        if one["ok"]:
            assert one["turtle"] == other["turtle"]
            one, other = _without_timings(one), _without_timings(other)
        assert one == other


def test_annotate_workers_that_cannot_open_the_engine_say_why(engine: Engine,
                                                              tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a data directory", encoding="utf-8")
    broken = engine.settings.model_copy(update={"data_dir": tmp_path / "a-file"})
    with pytest.raises(OntoRetrieveError, match=r"an annotate worker cannot open the engine: "
                       r"the data directory .* is a file, not a folder"):
        WorkerPool(broken, 2)


def test_an_engine_pool_runs_tasks_on_what_its_setup_made_in_order(engine: Engine) -> None:
    with EnginePool(engine.settings, 2, setup=tenants_of, payload="ready") as pool:
        assert list(pool.map_in_order(task_echo, range(6))) == [
            f"ready: default #{i}" for i in range(6)]


def test_an_engine_pool_whose_setup_fails_says_why(engine: Engine) -> None:
    with pytest.raises(OntoRetrieveError, match=r"a bench worker cannot start: no such "
                       r"variant 'x'"):
        EnginePool(engine.settings, 2, name="a bench worker", setup=refuse_to_start,
                   payload="x")


def test_annotate_cli_exit_codes(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ontoretrieve.cli import app

    folder = tmp_path / "catalog"
    folder.mkdir()
    shutil.copy(FIXTURES / "context" / "zoo.ttl", folder)
    data = str(tmp_path / "data")
    runner = CliRunner()
    assert runner.invoke(app, ["index", "--catalog", str(folder), "--data-dir", data,
                               "--json"]).exit_code == 0
    good = _units_file(tmp_path / "good.jsonl", ["A cat.", "A mouse."])
    result = runner.invoke(app, ["annotate", str(good), "--out", str(tmp_path / "g.jsonl"),
                                 "--data-dir", data, "--json"])
    assert result.exit_code == 0, result.output
    # auto: two units are no work for a second process
    assert (json.loads(result.stdout)["annotated"], json.loads(result.stdout)["workers"]) == (
        2, 1)
    # the written rows are told as done, so a resumed run starts no worker for them
    assert units_left(good, tmp_path / "g.jsonl") == 0
    result = runner.invoke(app, ["annotate", str(good), "--out", str(tmp_path / "w.jsonl"),
                                 "--data-dir", data, "--workers", "2", "--json"])
    assert result.exit_code == 0, result.output
    assert (json.loads(result.stdout)["annotated"], json.loads(result.stdout)["workers"]) == (
        2, 2)
    for wrong in ("0", "many"):
        refused = runner.invoke(app, ["annotate", str(good), "--out", str(tmp_path / "x.jsonl"),
                                      "--data-dir", data, "--workers", wrong])
        assert refused.exit_code == 2 and "--workers" in refused.output
        assert f"not {wrong!r}" in refused.output and not (tmp_path / "x.jsonl").exists()
    bad = _units_file(tmp_path / "bad.jsonl", ["A cat.", "A mouse."], bad=True)
    result = runner.invoke(app, ["annotate", str(bad), "--out", str(tmp_path / "b.jsonl"),
                                 "--data-dir", data, "--json"])
    assert result.exit_code == 1 and json.loads(result.stdout)["failed"] == 2
    missing = runner.invoke(app, ["annotate", str(tmp_path / "nope.jsonl"), "--out",
                                  str(tmp_path / "n.jsonl"), "--data-dir", data])
    assert missing.exit_code == 2 and "cannot read the units file" in missing.output


def test_contexts_do_not_depend_on_the_order_the_store_returns_triples(
        engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    # Stores hand a graph's triples back in their own order (an Oxigraph server, the
    # embedded store, a graph written by an apply): the context must be the same.
    engine.cache.clear("default")
    first = [engine.retrieve(text, mode=mode) for text in TEXTS for mode in ("auto", "vector")]
    reader = engine._retriever(engine._tenant("default")).reader
    reader._graphs.clear()
    reader._merged.clear()
    read = reader.store.graph_statements
    monkeypatch.setattr(reader.store, "graph_statements",
                        lambda graph: list(reversed(read(graph))))
    engine.cache.clear("default")
    again = [engine.retrieve(text, mode=mode) for text in TEXTS for mode in ("auto", "vector")]
    for one, other in zip(first, again, strict=True):
        assert _result(one) == _result(other)
        assert one.serialize("turtle") == other.serialize("turtle")


DOCUMENT = ["The keeper built a big cage (BC) on the island.",
            "Tom the cat lives in the BC and eats a mouse.",
            "A mouse."]
BIG_CAGE = "http://example.org/zoo#BigCage"


def _seed_iris(context: Context) -> set[str]:
    return {seed.iri for seed in context.seeds}


def test_a_documents_abbreviations_are_read_in_each_of_its_paragraphs(engine: Engine) -> None:
    engine.cache.clear("default")
    whole = "\n\n".join(DOCUMENT)
    alone = engine.retrieve(DOCUMENT[1], mode="vector")
    read = engine.retrieve(DOCUMENT[1], mode="vector", document=whole)
    assert BIG_CAGE not in _seed_iris(alone)  # "BC" alone names nothing
    assert BIG_CAGE in _seed_iris(read)
    seed = next(s for s in read.seeds if s.iri == BIG_CAGE)
    assert {(m["text"], m["form"]) for m in seed.mentions} == {("BC", "big cage")}
    cut = engine.slice(DOCUMENT[1], 500, mode="vector", document=whole)
    assert BIG_CAGE in {hit.id for hit in cut.hits}
    # Cached apart: the paragraph without its document still answers as before.
    _same(engine.retrieve(DOCUMENT[1], mode="vector"), alone)
    engine.cache.clear("default")
    batch = engine.retrieve_many(DOCUMENT, mode="vector", documents=[whole] * 3)
    engine.cache.clear("default")
    for text, context in zip(DOCUMENT, batch, strict=True):
        _same(engine.retrieve(text, mode="vector", document=whole), context)


def test_retrieve_many_takes_one_document_per_text(engine: Engine) -> None:
    with pytest.raises(OntoRetrieveError, match=r"one document \(or None\) per text: 1 "
                                                r"documents for 3 texts"):
        engine.retrieve_many(DOCUMENT, documents=["x"])
    with pytest.raises(OntoRetrieveError, match="one string for 3 texts"):
        engine.retrieve_many(DOCUMENT, documents="x")  # type: ignore[arg-type]
    limit = engine.settings.server.max_text_chars
    with pytest.raises(OntoRetrieveError, match="the document: the text has"):
        engine.retrieve(DOCUMENT[1], document="x" * (limit + 1))


def test_annotate_reads_each_unit_with_the_document_of_its_doc_id(engine: Engine,
                                                                   tmp_path: Path) -> None:
    units = tmp_path / "units.jsonl"
    lines = [json.dumps({"id": f"p{i}", "doc_id": "paper", "text": t})
             for i, t in enumerate(DOCUMENT)]
    lines += [json.dumps({"id": "other", "doc_id": "note", "text": DOCUMENT[1]}),
              json.dumps({"id": "bad", "doc_id": ["paper"], "text": "x"})]
    units.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    report = annotate_file(engine, units, out, tenant="default", mode="vector", batch=2)
    rows = {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert (report.annotated, report.failed) == (5, 1)
    assert rows["bad"]["error"]["message"] == 'line 5: "doc_id" must be a string, not list'
    assert BIG_CAGE in {s["iri"] for s in rows["p1"]["seeds"]}
    # The same paragraph in a document that defines nothing reads "BC" as nothing.
    assert BIG_CAGE not in {s["iri"] for s in rows["other"]["seeds"]}
    single = engine.retrieve(DOCUMENT[1], mode="vector", document="\n\n".join(DOCUMENT))
    assert rows["p1"]["turtle"] == single.serialize("turtle")
