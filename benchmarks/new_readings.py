"""The (unit, term) readings one rule of the mention lane adds, gold among them.

A term counts once per unit, and only if no other reading of the text named
it: ``MentionDictionary.find(text, RULE=False)`` did not. RULE is a keyword of
``find``: ``pertainyms`` (relational adjectives by WordNet, session 37) or
``prefixes`` (rare prefixed words by their base, session 38).

    HF_HUB_OFFLINE=1 python benchmarks/new_readings.py prefixes DATA_DIR UNITS.jsonl [...]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from ontoretrieve import load_settings
from ontoretrieve.index.mention_match import Mention
from ontoretrieve.query.seeder import SeedRetriever

RULES = ("pertainyms", "prefixes")
"""The keywords of ``MentionDictionary.find`` that switch one rule off."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rule", choices=RULES)
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("units", type=Path, nargs="+")
    args = parser.parse_args()
    dictionary = SeedRetriever.open(load_settings(data_dir=args.data_dir)).dictionary
    if dictionary is None:
        raise SystemExit(f"{args.data_dir}: no mention dictionary (index the catalog first)")
    readings: Counter[tuple[str, str]] = Counter()
    gold_readings: Counter[tuple[str, str]] = Counter()
    for path in args.units:
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                unit = json.loads(line)
                gold = set(unit.get("gold_iris") or []) | {
                    iri for group in unit.get("gold_any_of") or [] for iri in group}
                before = {m.iri for m in dictionary.find(unit["text"], **{args.rule: False})}
                new: dict[str, Mention] = {}
                for m in dictionary.find(unit["text"]):
                    if m.iri not in before:
                        new.setdefault(m.iri, m)
                for iri, m in new.items():
                    readings[m.text.lower(), m.form] += 1
                    gold_readings[m.text.lower(), m.form] += iri in gold
    print("new (unit, term) readings", readings.total(), "gold", gold_readings.total())
    print("most frequent (readings, gold, (text, name)):")
    for key, count in readings.most_common(40):
        print(count, gold_readings[key], key)
    print("most gold:")
    for key, count in gold_readings.most_common(25):
        print(readings[key], count, key)


if __name__ == "__main__":
    main()
