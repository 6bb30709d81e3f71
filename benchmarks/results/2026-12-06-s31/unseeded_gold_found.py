"""Why CRAFT's unseeded gold is unseeded (session 31): did the mention dictionary find the
term in the text at all, and was the mention usable? Over a whole-suite run's rows.
Prints the counts of each case and its most frequent (annotated label, mention) pairs. Run
alone:

    HF_HUB_OFFLINE=1 python unseeded_gold_found.py CRAFT_UNITS.jsonl RUN/base.jsonl DATA_DIR
"""

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ontoretrieve import Engine, load_settings


def main() -> None:
    units_path, rows_path, data_dir = (Path(a) for a in sys.argv[1:4])
    units = [json.loads(line) for line in units_path.read_text().splitlines() if line.strip()]
    seeds_of = {row["id"]: set(row["retrieved_term_iris"])
                for row in map(json.loads, rows_path.read_text().splitlines())}
    cases: Counter[str] = Counter()
    examples: defaultdict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
    with Engine.open(load_settings(data_dir=data_dir)) as engine:
        seeder = engine._retriever(engine._tenant("default")).seed_retriever
        assert seeder.dictionary is not None
        for unit in units:
            missed = [g for g in unit["gold"] if g["iri"] not in seeds_of[unit["unit_id"]]]
            if not missed:
                continue
            found = {m.iri for m in seeder.dictionary.find(unit["text"])}
            usable = {m.iri for m in seeder.mentions(unit["text"])}
            for gold in missed:
                case = _case(gold, found, usable)
                cases[case] += 1
                examples[case][(gold["label_in_annotation"],
                                gold["mentions"][0][2].lower())] += 1
    print(dict(cases))
    for case, counts in examples.items():
        print(case, counts.most_common(40))


def _case(gold: dict[str, Any], found: set[str], usable: set[str]) -> str:
    if gold["iri"] in usable:
        return "found_usable"
    return "found_unusable" if gold["iri"] in found else "not_found"


if __name__ == "__main__":
    main()
