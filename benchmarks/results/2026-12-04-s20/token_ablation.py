"""Usage: python token_ablation.py UNITS_DIR DATA_DIR

Turtle tokens a default context spends on each kind of statement: the drop when it is left out."""

import collections
import json
import random
import sys
from pathlib import Path

from ontoretrieve import Engine, load_settings
from ontoretrieve.context.model import serialize_triples
from ontoretrieve.context.tokens import estimate_tokens

units = []
for f in ["craft", "measeval", "t2k_dbpedia"]:
    us = [json.loads(line) for line in Path(f"{sys.argv[1]}/{f}.jsonl").read_text().splitlines()]
    random.Random(5).shuffle(us)
    units += [(f, u) for u in us[:40]]
st = json.loads(Path(f"{sys.argv[2]}/index/default/state.json").read_text())["ontologies"]
by_stem = {Path(v["sources"][0]).stem: h for h, v in st.items()}
GEN = (
    "http://www.w3.org/2002/07/owl#",
    "http://www.w3.org/2000/01/rdf-schema#",
    "http://www.w3.org/2004/02/skos/core#",
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
)


def kind(t):
    key = t.predicate.value.rsplit("#", 1)[-1].rsplit("/", 1)[-1]
    if key == "type":
        key = "type " + ("generic" if t.object.value.startswith(GEN) else "own")
    return key


drop = collections.Counter()
total = collections.Counter()
count = collections.Counter()
with Engine.open(load_settings(data_dir=Path(sys.argv[2]))) as e:
    for f, u in units:
        onts = [by_stem[u["ontology"]]] if u.get("ontology") else []
        c = e.retrieve(u["text"], ontologies=onts)
        ts = c.triples()
        full = estimate_tokens(serialize_triples(ts, "turtle"))
        total[f] += full
        kinds = collections.Counter(kind(t) for t in ts)
        for k, n in kinds.items():
            if n < 0.03 * len(ts):
                continue
            rest = [t for t in ts if kind(t) != k]
            drop[(f, k)] += full - estimate_tokens(serialize_triples(rest, "turtle"))
            count[(f, k)] += n
for f in total:
    print(f, "tokens", total[f])
    for (ff, k), n in sorted(drop.items(), key=lambda kv: -kv[1]):
        if ff == f:
            print(f"   {k:<22} {100 * n / total[f]:5.1f}%  {n / count[(f, k)]:5.1f} tokens each")
