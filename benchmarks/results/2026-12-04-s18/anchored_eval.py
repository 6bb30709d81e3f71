"""Replay the seeds of ``evidence_probe.py`` with the seeds named after a number first in
their tier (instead of at the place their score gave them), the rest by the shipped
order (fit x sqrt(strength)); print recall at k seeds:

    python anchored_eval.py EVIDENCE_PROBE.json
"""

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from order_eval2 import Seed, fit, reorder, strength


def anchored(seed: Seed) -> bool:
    return any(m["after_number"] for m in seed["mentions"])


def shipped(seed: Seed) -> float:
    return fit(seed) * strength(seed) ** 0.5


def anchored_first(seeds: list[Seed]) -> list[Seed]:
    out: list[Seed] = []
    for tier in sorted({s["tier"] for s in seeds}):
        group = [s for s in seeds if s["tier"] == tier]
        rest = [s for s in group if not anchored(s)]
        out += [s for s in group if anchored(s)]
        out += sorted((s for s in rest if s["fit"] is not None), key=shipped, reverse=True)
        out += [s for s in rest if s["fit"] is None]
    return out


def main() -> None:
    data = json.loads(Path(sys.argv[1]).read_text())
    orders = {"shipped": lambda seeds: reorder(seeds, shipped), "after a number first":
              anchored_first}
    for source in ("craft", "measeval"):
        for name, order in orders.items():
            hits: Counter[int] = Counter()
            total = 0
            for unit in (u for u in data if u["source"] == source):
                ordered = order(sorted(unit["seeds"], key=lambda s: s["place"]))
                total += unit["gold"]
                for k in (3, 5, 10, 15):
                    hits[k] += sum(s["gold"] for s in ordered[:k])
            print(f"{source:9} {name:22}", " ".join(f"@{k} {100 * hits[k] / total:.1f}"
                                                   for k in (3, 5, 10, 15)))


if __name__ == "__main__":
    main()
