"""Probe: elliptic mentions the lexical cohesion rule drops, and how well their term fits.

An elliptic form ("expression" for *gene expression*) counts only where the text uses the
name's other word too. This probe keeps the ones that rule drops and records for each the
cosine between its window's query vector and its term's core vector, how many other terms
of its ontology the text names by their own forms and that fit their windows (cosine >=
0.1, the topic-fit floor), and whether the term is gold, on the CRAFT rows of a ``bench
recall`` run (text and gold), with the defaults:

    python elliptic_probe.py RUN.jsonl DATA_DIR OUT.json
"""

import json
import sys
from pathlib import Path

import numpy as np

from ontoretrieve import Engine, load_settings
from ontoretrieve.index import mention_match
from ontoretrieve.query import seeder as seeder_module
from ontoretrieve.query.mention_lane import _window_at

dropped: set[tuple[str, int, int]] = set()
cohesive = mention_match._cohesive


def keep_all(mentions, tokens):  # type: ignore[no-untyped-def]
    kept = {(m.iri, m.start, m.end) for m in cohesive(mentions, tokens)}
    dropped.update((m.iri, m.start, m.end) for m in mentions
                   if (m.iri, m.start, m.end) not in kept)
    return mentions


mention_match._cohesive = keep_all
captured: list[dict[str, object]] = []
original = seeder_module.SeedRetriever._with_mentions


def recording(self, text, scope, hashes, windows, lanes, prepared):  # type: ignore[no-untyped-def]
    found = original(self, text, scope, hashes, windows, lanes, prepared)
    mentions = [m for m in found[0] if (m.iri, m.start, m.end) in dropped]
    if not mentions or not lanes.dense_queries:
        return found
    others = [m for m in found[0] if (m.iri, m.start, m.end) not in dropped
              and m.kind != "elliptic" and not m.contained]
    vectors = self.index.core_vectors(sorted({m.iri for m in mentions + others}))

    def cos(m):  # type: ignore[no-untyped-def]
        return float(np.dot(lanes.dense_queries[_window_at(windows, m.start)], vectors[m.iri]))

    fitting: dict[str, set[str]] = {}  # ontology -> its terms named by own forms that fit
    for m in others:
        if m.after_number or (m.iri in vectors and cos(m) >= 0.1):
            fitting.setdefault(m.ontology_hash, set()).add(m.iri)
    for m in mentions:
        if m.iri in vectors:
            captured.append({"iri": m.iri, "text": m.text, "form": m.form, "cos": cos(m),
                             "ontology_fits": len(fitting.get(m.ontology_hash, set())
                                                  - {m.iri})})
    return found


seeder_module.SeedRetriever._with_mentions = recording

units = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]
units = [u for u in units if u["source"] == "craft"]
result = []
with Engine.open(load_settings(data_dir=Path(sys.argv[2]))) as engine:
    for unit in units:
        captured.clear()
        dropped.clear()
        engine.retrieve(unit["text"])
        gold = {iri for variants in unit["gold"] for iri in variants}
        found = {row["iri"] for row in json.loads(json.dumps(captured))}
        missed = {iri for iri in gold if iri not in set(unit["retrieved_term_iris"])}
        for row in captured:
            row["gold"] = row["iri"] in gold
            row["missed_before"] = row["iri"] in missed
        result.append({"id": unit["id"], "mentions": list(captured)})
Path(sys.argv[3]).write_text(json.dumps(result))
