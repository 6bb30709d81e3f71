"""Subjects of a context that no statement names (no label, prefLabel, altLabel or
symbol), at the default budget, over 40 CRAFT paragraphs (shuffled with seed 3): how
many there are and how many are gold terms. Session 23's finding (RESULTS.md).

    HF_HUB_OFFLINE=1 python unnamed_subjects.py CRAFT_UNITS.jsonl --data-dir DATA
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import pyoxigraph as ox

from ontoretrieve.engine import Engine
from ontoretrieve.settings import load_settings

NAMES = {"http://www.w3.org/2000/01/rdf-schema#label",
         "http://www.w3.org/2004/02/skos/core#prefLabel",
         "http://www.w3.org/2004/02/skos/core#altLabel",
         "http://qudt.org/schema/qudt/symbol"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("units", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--count", type=int, default=40)
    args = parser.parse_args()
    units = [json.loads(line) for line in args.units.read_text().splitlines()]
    random.Random(3).shuffle(units)
    engine = Engine.open(load_settings(data_dir=args.data_dir))
    subjects = nameless = gold_named = gold_nameless = 0
    examples: list[tuple[str, list[str]]] = []
    for unit in units[:args.count]:
        predicates: dict[str, set[str]] = {}
        for t in engine.retrieve(unit["text"]).triples():
            if isinstance(t.subject, ox.NamedNode):
                predicates.setdefault(t.subject.value, set()).add(t.predicate.value)
        gold = {a["iri"] for a in unit["gold"]}
        for iri, used in predicates.items():
            named = bool(used & NAMES)
            subjects += 1
            nameless += not named
            gold_named += iri in gold and named
            gold_nameless += iri in gold and not named
            if not named and len(examples) < 10:
                examples.append((iri.rsplit("/", 1)[-1], sorted(p.rsplit("#", 1)[-1]
                                                                for p in used)))
    print(f"subjects {subjects}, named by no statement {nameless}; gold subjects named "
          f"{gold_named}, not named {gold_nameless}")
    print(examples)


if __name__ == "__main__":
    main()
