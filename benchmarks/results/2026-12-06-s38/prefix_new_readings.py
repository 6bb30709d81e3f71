"""The (unit, term) readings prefixed words add to the mention lane, gold among them.

Session 38. A term counts once per unit, and only if no other reading of the
text named it (``find(text, prefixes=False)`` did not).

    HF_HUB_OFFLINE=1 python prefix_new_readings.py DATA_DIR UNITS.jsonl [UNITS.jsonl ...]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from ontoretrieve import load_settings
from ontoretrieve.index.mention_match import Mention
from ontoretrieve.query.seeder import SeedRetriever


def main(data_dir: str, paths: list[str]) -> None:
    dictionary = SeedRetriever.open(load_settings(data_dir=Path(data_dir))).dictionary
    assert dictionary is not None
    readings: Counter[tuple[str, str]] = Counter()
    gold_readings: Counter[tuple[str, str]] = Counter()
    for path in paths:
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                unit = json.loads(line)
                gold = set(unit.get("gold_iris") or []) | {
                    iri for group in unit.get("gold_any_of") or [] for iri in group}
                before = {m.iri for m in dictionary.find(unit["text"], prefixes=False)}
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
    main(sys.argv[1], sys.argv[2:])
