"""Usage: python support_eval.py SEED_PROBE.json (seed_probe.py of session 19).

Per-ontology support of tier-0 seeds, and seed orders by it."""

import collections
import json
import sys
from pathlib import Path

d = json.loads(Path(sys.argv[1]).read_text())


def ont(i):
    if "obolibrary" in i:
        return i.rsplit("/", 1)[1].split("_")[0]
    p = i.replace("#", "/").split("/")
    return "/".join(p[2:-1])


by = collections.Counter()
g = collections.Counter()


def recall_at(order_fn, N, src):
    hit = tot = 0
    for u in d:
        if u["source"] != src:
            continue
        seeds = order_fn(u)
        top = {s["iri"] for s in seeds[:N]}
        gold = set(u["gold"])
        tot += len(gold)
        hit += len(gold & top)
    return 100 * hit / tot


def support(u):
    c = collections.Counter(ont(s["iri"]) for s in u["seeds"] if s["tier"] == 0)
    return c


for u in d:
    c = support(u)
    for s in u["seeds"]:
        if s["tier"] != 0:
            continue
        k = min(c[ont(s["iri"])], 6)
        by[(u["source"], k)] += 1
        g[(u["source"], k)] += s["gold"]
for k in sorted(by):
    print(k, by[k], g[k], "%.1f%%" % (100 * g[k] / by[k]))


def base(u):
    return u["seeds"]


def supported(minsup):
    def f(u):
        c = support(u)
        return sorted(
            u["seeds"],
            key=lambda s: (s["tier"], s["tier"] == 0 and c[ont(s["iri"])] < minsup, s["place"]),
        )

    return f


for src in ("craft", "measeval"):
    for N in (5, 10, 15, 20):
        print(
            src,
            N,
            f"base {recall_at(base, N, src):.1f}",
            f" sup>=2 {recall_at(supported(2), N, src):.1f}",
            f" sup>=3 {recall_at(supported(3), N, src):.1f}",
        )
