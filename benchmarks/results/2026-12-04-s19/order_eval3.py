"""Replay: seed orders within an evidence tier, scored by recall at k seeds.

Reads ``seed_probe.py``'s output and reorders each unit's seeds as ``fit_first`` does
(anchored seeds and seeds without a fit keep their places; the others sorted within
their tier by a key), for keys that add lane agreement and mention counts to the
shipped fit x strength ** 0.5:

    python order_eval3.py PROBE.json
"""

import json
import sys
from collections.abc import Callable

Seed = dict

with open(sys.argv[1]) as probe:
    units = json.load(probe)


def strength(s: Seed) -> float:
    return max((m["strength"] for m in s["mentions"]), default=1.0)


def anchored(s: Seed) -> bool:
    return any(m["after_number"] for m in s["mentions"])


def lanes(s: Seed) -> set[str]:
    return {x["lane"] for x in s["lanes"]}


def reorder(seeds: list[Seed], key: Callable[[Seed], float]) -> list[Seed]:
    places = [i for i, s in enumerate(seeds) if s["fit"] is not None and not anchored(s)]
    moved = sorted(places, key=lambda i: (seeds[i]["tier"], -key(seeds[i])))
    out = list(seeds)
    for place, source in zip(places, moved, strict=True):
        out[place] = seeds[source]
    return out


def recall(key: Callable[[Seed], float], source: str, ks=(3, 5, 10, 15, 20)) -> list[float]:
    found = [0] * len(ks)
    total = 0
    for u in units:
        if u["source"] != source:
            continue
        total += len(u["gold"])
        order = reorder(sorted(u["seeds"], key=lambda s: s["place"]), key)
        for j, k in enumerate(ks):
            found[j] += sum(s["gold"] for s in order[:k])
    return [round(100 * f / total, 1) for f in found]


def shipped(s): return s["fit"] * strength(s) ** 0.5


VECTOR = {"core", "neighborhood"}


def windows_naming(s: Seed) -> int:
    return max(1, len({m["span"][0] for m in s["mentions"]}))


KEYS = {
    "place (as run)": lambda s: -s["place"],
    "fit x str^0.5 (shipped)": shipped,
    "+ vector lanes x1.25": lambda s: shipped(s) * (1.25 if lanes(s) & VECTOR else 1),
    "+ vector lanes x1.5": lambda s: shipped(s) * (1.5 if lanes(s) & VECTOR else 1),
    "+ bm25 x1.25": lambda s: shipped(s) * (1.25 if "bm25" in lanes(s) else 1),
    "+ lanes agreeing ^0.25": lambda s: shipped(s) * len(lanes(s)) ** 0.25,
    "+ lanes agreeing ^0.5": lambda s: shipped(s) * len(lanes(s)) ** 0.5,
    "+ windows naming ^0.25": lambda s: shipped(s) * windows_naming(s) ** 0.25,
    "+ mentions ^0.5": lambda s: shipped(s) * max(1, len(s["mentions"])) ** 0.5,
}
for source in ("craft", "measeval"):
    print(source, "recall at 3/5/10/15/20 seeds")
    for name, key in KEYS.items():
        print(f"  {name:28s}", recall(key, source))
