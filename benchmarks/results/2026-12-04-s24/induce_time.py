"""Milliseconds a unit in the subgraph stage (``induce``), with ``expand.name_reached_terms``
on (1) or off (0), over 100 CRAFT paragraphs (shuffled with seed 5) after 20 untimed ones.
Session 24 (RESULTS.md); run each side alone, in turn.

    HF_HUB_OFFLINE=1 python induce_time.py 1 --data-dir DATA --units CRAFT_UNITS.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

import ontoretrieve.context.retriever as retriever
from ontoretrieve.engine import Engine
from ontoretrieve.settings import load_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("named", choices=("0", "1"))
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--units", required=True)
    args = parser.parse_args()
    with open(args.units, encoding="utf-8") as lines:
        units = [json.loads(line) for line in lines]
    random.Random(5).shuffle(units)
    engine = Engine.open(load_settings(data_dir=args.data_dir,
                                       expand={"name_reached_terms": args.named == "1"}))
    for unit in units[:20]:
        engine.retrieve(unit["text"])
    original, spent = retriever.induce, [0.0]

    def timed(*positional: Any, **named: Any) -> Any:
        started = time.perf_counter()
        result = original(*positional, **named)
        spent[0] += time.perf_counter() - started
        return result

    retriever.induce = timed  # type: ignore[assignment]
    for unit in units[20:120]:
        engine.retrieve(unit["text"])
    print(f"name_reached_terms={args.named}: induce {spent[0] * 1000 / 100:.1f} ms a unit")


if __name__ == "__main__":
    main()
