"""Learning curve + extra features for the seed-confidence trees: OOF by article.

Paths come from the environment: SEEDS (the pickle dump_all.py writes), SAMPLE_RUN
(a seed-1 `bench recall` base.jsonl), BENCH (the bench folder, e.g. ../shared/bench),
OLD_TREES (a trees.json to compare against). Run from the repository root.
"""

import json
import math
import os
import pickle
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/
from fit_seed_confidence import TOP, TREES, article
from sklearn.ensemble import GradientBoostingClassifier

from ontoretrieve.query.confidence import FEATURES, seed_features
from ontoretrieve.query.confidence_trees import packaged_trees

units = pickle.loads(Path(os.environ["SEEDS"]).read_bytes())
s1 = set(json.loads(row)["id"] for row in Path(os.environ["SAMPLE_RUN"]).read_text().splitlines())
folds = 5
articles = sorted({article(uid) for uid, _ in units})
rng = random.Random(0)
rng.shuffle(articles)
fold_of = {a: i % folds for i, a in enumerate(articles)}
params = dict(TREES)
opts = {}
for arg in sys.argv[1:]:
    k, v = arg.split("=")
    if k in TREES:
        params[k] = type(TREES[k])(v)
    else:
        opts[k] = v
mw = float(opts.get("mw", 1.0))
extra = opts.get("extra", "").split(",") if opts.get("extra") else []


def extras(seeds):
    qspans = {tuple(m["span"]) for s in seeds for m in s.mentions if m.get("after_number")}
    fits = [s.fit or 0.0 for s in seeds]
    best = max(fits) if fits else 0.0
    cnt = Counter(s.ontology_hash for s in seeds)
    ranks = {h: i for i, (h, _) in enumerate(sorted(cnt.items(), key=lambda kv: -kv[1]))}
    fitsum = Counter()
    for s in seeds:
        fitsum[s.ontology_hash] += s.fit or 0.0
    from ontoretrieve.rdf.vocab import namespace_of

    ns = Counter(namespace_of(s.iri) for s in seeds)
    nsr = {h: i for i, (h, _) in enumerate(sorted(ns.items(), key=lambda kv: -kv[1]))}
    out = []
    for s in seeds:
        row = {}
        row["quantities"] = math.log1p(len(qspans))
        row["nseeds"] = math.log1p(len(seeds))
        row["fitgap"] = best - (s.fit or 0.0)
        row["ont_share"] = cnt[s.ontology_hash] / len(seeds)
        row["ont_rank"] = float(ranks[s.ontology_hash])
        row["ont_fit"] = fitsum[s.ontology_hash] / cnt[s.ontology_hash]
        row["ont_top"] = float(ranks[s.ontology_hash] == 0)
        row["ns_share"] = ns[namespace_of(s.iri)] / len(seeds)
        row["ns_rank"] = float(nsr[namespace_of(s.iri)])
        out.append(row)
    return out


scope = {}
for _uid, (src, gold, seeds) in units:
    for s in seeds:
        if s.iri in gold:
            scope.setdefault(src, set()).add(s.ontology_iri)
print({k: sorted(v) for k, v in scope.items()})
use_scope = opts.get("scope") == "1"
cross = opts.get("scope") == "2"
anyscope = set().union(*scope.values())


def design(us, train=False):
    X, Y, W = [], [], []
    for src, gold, seeds in us:
        for s, f, e in zip(seeds, seed_features(seeds), extras(seeds), strict=False):
            if train and use_scope and s.ontology_iri not in scope[src]:
                continue
            if train and cross and s.ontology_iri in anyscope and s.ontology_iri not in scope[src]:
                continue
            X.append([f[k] for k in FEATURES] + [e[k] for k in extra])
            Y.append(float(s.iri in gold))
            W.append(mw if src == "measeval" else 1.0)
    return np.array(X), np.array(Y), np.array(W)


def order_gold(us, clf):
    out = Counter()
    for src, gold, seeds in us:
        if not seeds:
            continue
        if clf is None:
            ordered = list(seeds)
        else:
            x, _, _ = design([(src, gold, seeds)])
            if clf == "shipped":
                p = shipped.confidences(seed_features(seeds))
            else:
                p = clf.predict_proba(x)[:, 1]
            p = [round(float(v), 4) for v in p]
            idx = sorted(range(len(seeds)), key=lambda i: (seeds[i].evidence_tier, -p[i], i))
            ordered = [seeds[i] for i in idx]
        for k in TOP:
            out[src, k] += sum(s.iri in gold for s in ordered[:k])
    return out


shipped = packaged_trees()
tot = {n: Counter() for n in ("engine", "shipped", "oof")}
totns = {n: Counter() for n in ("shipped", "oof")}
t0 = time.time()
for fold in range(folds):
    train = [u for uid, u in units if fold_of[article(uid)] != fold]
    x, y, w = design(train, train=True)
    clf = GradientBoostingClassifier(**params).fit(x, y, sample_weight=w)
    test = [(uid, u) for uid, u in units if fold_of[article(uid)] == fold]
    for name, m in (("engine", None), ("shipped", "shipped"), ("oof", clf)):
        tot[name].update(order_gold([u for _, u in test], m))
        if name != "engine":
            totns[name].update(order_gold([u for uid, u in test if uid not in s1], m))
print(params, opts, round(time.time() - t0), "s")
for name, c in tot.items():
    for src in ("craft", "measeval"):
        print(f"all   {name:8s} {src:8s}", " ".join(f"{c[src, k]}" for k in TOP))
for name, c in totns.items():
    print(f"notS1 {name:8s} craft   ", " ".join(f"{c['craft', k]}" for k in TOP))
