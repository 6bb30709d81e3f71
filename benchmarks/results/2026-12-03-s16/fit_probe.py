"""Probe: how well each mention's term fits its window (cosine of core vectors), gold or not.

Retrieves the CRAFT and MeasEval rows of a ``bench recall`` run (their text and gold) with
the defaults, hooking the seeder to record every form-matched mention with the cosine
between its window's query vector and its term's core vector. Run on 1b9e7a9 (before the
topic fit), with ``CHECKOUT=DIR`` to load another checkout:

    python fit_probe.py RUN.jsonl DATA_DIR OUT.json
"""

import json
import os
import sys
from pathlib import Path

import numpy as np

if os.environ.get("CHECKOUT"):  # another checkout's package: set the editable one aside
    sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f)]
    sys.path.insert(0, os.environ["CHECKOUT"])

from ontoretrieve import Engine, load_settings
from ontoretrieve.query import seeder as seeder_module
from ontoretrieve.query.mention_lane import _window_at

captured: list[list[dict[str, object]]] = []
original = seeder_module.SeedRetriever._with_mentions


def recording(self, text, scope, hashes, windows, lanes, prepared):  # type: ignore[no-untyped-def]
    found = original(self, text, scope, hashes, windows, lanes, prepared)
    mentions = found[0]
    iris = sorted({m.iri for m in mentions})
    vectors = self.index.core_vectors(iris) if iris else {}
    rows = []
    for m in mentions:
        if m.similarity is not None or m.iri not in vectors or not lanes.dense_queries:
            continue
        window = lanes.dense_queries[_window_at(windows, m.start)]
        rows.append({"iri": m.iri, "text": m.text, "kind": m.kind, "words": m.words,
                     "shared": m.shared_by, "after_number": m.after_number,
                     "derived": m.derived, "outranked": m.outranked,
                     "contained": m.contained, "strength": m.strength,
                     "cos": float(np.dot(window, vectors[m.iri])),
                     "ont": m.ontology_hash[:8]})
    captured.append(rows)
    return found


seeder_module.SeedRetriever._with_mentions = recording

units = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]
units = [u for u in units if u["source"] in ("craft", "measeval")]
result = []
with Engine.open(load_settings(data_dir=Path(sys.argv[2]))) as engine:
    for unit in units:
        captured.clear()
        context = engine.retrieve(unit["text"])
        gold = {iri for variants in unit["gold"] for iri in variants}
        seeds = {s.iri for s in context.seeds}
        mentions = captured[0] if captured else []
        for m in mentions:
            m["gold"], m["seed"] = m["iri"] in gold, m["iri"] in seeds
        result.append({"id": unit["id"], "source": unit["source"], "mentions": mentions,
                       "gold": sorted(gold), "seeds": sorted(seeds)})
Path(sys.argv[3]).write_text(json.dumps(result))
