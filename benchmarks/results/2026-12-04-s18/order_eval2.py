"""Replay the seeds of ``evidence_probe.py`` in other orders within their tiers and print
recall at k seeds. Seeds named after a number and seeds without a fit keep their places,
as in the engine:

    python order_eval2.py EVIDENCE_PROBE.json
"""

import functools
import json
import math
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

KIND_WEIGHTS = {"label": 1.0, "exact": 0.9, "symbol": 0.9, "local_name": 0.7,
                "related": 0.5, "narrow": 0.4, "broad": 0.3, "elliptic": 0.5}
Seed = dict
Key = Callable[[Seed], float]


def kind_weight(seed: Seed) -> float:
    """The strongest mention's kind weight, derived and nested matches weaker."""
    if not seed["mentions"]:
        return 0.3
    mention = seed["mentions"][0]
    weight = KIND_WEIGHTS.get(mention["kind"], 0.5)
    return weight * (0.6 if mention["derived"] else 1) * (0.5 if mention["contained"] else 1)


def ambiguity(seed: Seed) -> float:
    shared = seed["mentions"][0]["shared_by"] if seed["mentions"] else 0
    return 1 / (1 + math.log2(shared)) if shared else 1.0


def strength(seed: Seed) -> float:
    return kind_weight(seed) * ambiguity(seed)


def reorder(seeds: list[Seed], key: Key) -> list[Seed]:
    """Each tier sorted by ``key`` (best first) into the places of its free seeds."""
    out: list[Seed] = []
    for tier in sorted({s["tier"] for s in seeds}):
        group = [s for s in seeds if s["tier"] == tier]
        fixed = {i for i, s in enumerate(group)
                 if s["fit"] is None or any(m["after_number"] for m in s["mentions"])}
        free = iter(sorted((s for i, s in enumerate(group) if i not in fixed), key=key,
                           reverse=True))
        out += [s if i in fixed else next(free) for i, s in enumerate(group)]
    return out


def fit(seed: Seed) -> float:
    return seed["fit"] or 0.0


def weighed(seed: Seed, power: float) -> float:
    return fit(seed) * strength(seed) ** power


ORDERS: dict[str, Key | None] = {
    "current (place)": None,
    "fit": fit,
    "fit x kind weight": lambda s: fit(s) * kind_weight(s),
    "fit + 0.1 kind weight": lambda s: fit(s) + 0.1 * kind_weight(s),
    "fit x strength": lambda s: fit(s) * strength(s),
    **{f"fit x strength^{power}": functools.partial(weighed, power=power)
       for power in (0.25, 0.5, 0.75)},
    "fit x (1 + 0.2 log mentions)": lambda s: fit(s) * (1 + 0.2 * math.log1p(
        len(s["mentions"]))),
}


def main() -> None:
    data = json.loads(Path(sys.argv[1]).read_text())
    for source in ("craft", "measeval"):
        print(source)
        for name, key in ORDERS.items():
            hits: Counter[int] = Counter()
            total = 0
            for unit in (u for u in data if u["source"] == source):
                seeds = sorted(unit["seeds"], key=lambda s: s["place"])
                ordered = reorder(seeds, key) if key else seeds
                total += unit["gold"]
                for k in (3, 5, 10, 15, 25):
                    hits[k] += sum(s["gold"] for s in ordered[:k])
            print(f"  {name:30}", " ".join(f"@{k} {100 * hits[k] / total:.1f}"
                                          for k in (3, 5, 10, 15, 25)))


if __name__ == "__main__":
    main()
