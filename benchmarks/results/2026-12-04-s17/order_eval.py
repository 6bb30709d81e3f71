"""Recall at k seeds under several orderings of ``order_probe.py``'s seeds (CRAFT, MeasEval).

A gold term counts once however many of its variants are among the first k seeds.

    python order_eval.py OUT.json      # OUT.json: order_probe.py's output
"""

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Row = dict[str, Any]
Order = Callable[[list[Row]], list[int]]
UNITS = json.loads(Path(sys.argv[1]).read_text())


def recall(order: Order, k: int, source: str) -> float:
    hit = total = 0
    for unit in UNITS:
        if unit["source"] != source:
            continue
        seeds = unit["seeds"]
        first = order(seeds)[:k]
        hit += len({seeds[i]["group"] for i in first if seeds[i]["group"] is not None})
        total += unit["gold"]
    return hit / total


def by(key: Callable[[Row, int], tuple[Any, ...]]) -> Order:
    return lambda seeds: sorted(range(len(seeds)), key=lambda i: key(seeds[i], i))


def fit(row: Row) -> float:
    return float(row["fit"] or 0.0)


def numbers_keep_places(seeds: list[Row]) -> list[int]:
    """Seeds named after a number keep their places; the others fill the rest by (tier, fit)."""
    others = sorted((i for i, s in enumerate(seeds) if not s["after_number"]),
                    key=lambda i: (seeds[i]["tier"], -fit(seeds[i])))
    rest = iter(others)
    return [i if s["after_number"] else next(rest) for i, s in enumerate(seeds)]


ORDERS: dict[str, Order] = {
    "current (tier, score)": by(lambda s, i: (i,)),
    "tier, fit": by(lambda s, i: (s["tier"], -fit(s))),
    "numbers keep places": numbers_keep_places,
    "tier, fit; numbers at 0.3": by(lambda s, i: (s["tier"],
                                                  -(0.3 if s["after_number"] else fit(s)))),
    "tier, fit; numbers at 0.4": by(lambda s, i: (s["tier"],
                                                  -(0.4 if s["after_number"] else fit(s)))),
}
for source in ("craft", "measeval"):
    print(source)
    for name, order in ORDERS.items():
        cells = " ".join(f"@{k} {recall(order, k, source):.3f}" for k in (3, 5, 10, 15, 20, 30))
        print(f"  {name:<28} {cells}")
