"""Gold among the first K seeds of fold 4's paragraphs outside seed 1, per trees file given.

Paths come from the environment: SEEDS (the pickle dump_all.py writes), SAMPLE_RUN
(a seed-1 `bench recall` base.jsonl), BENCH (the bench folder, e.g. ../shared/bench),
OLD_TREES (a trees.json to compare against). Run from the repository root.
"""

import json
import os
import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/
from fit_seed_confidence import TOP, article, gold_at

from ontoretrieve.query.confidence_trees import TreeModel

units = pickle.loads(Path(os.environ["SEEDS"]).read_bytes())
articles = sorted({article(uid) for uid, _ in units})
fold_of = {a: i % 5 for i, a in enumerate(articles)}
s1 = set(json.loads(row)["id"] for row in Path(os.environ["SAMPLE_RUN"]).read_text().splitlines())
held = [u for uid, u in units if fold_of[article(uid)] == 4 and uid not in s1]
print(len(held))
models = {"shipped": TreeModel.from_dict(json.loads(Path(os.environ["OLD_TREES"]).read_text()))}
for f in sys.argv[1:]:
    models[f] = TreeModel.from_dict(json.loads(Path(f).read_text()))
for name, m in models.items():
    for src, c in gold_at(held, m).items():
        print(f"{name:22s} {src:8s}", " ".join(str(c[k]) for k in TOP))
