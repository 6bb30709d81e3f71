"""Probe (session 26): where the tokens of a tight context go.

Retrieves 40 CRAFT paragraphs (shuffled with seed 7) at 500 tokens with the default
settings and counts, over their Turtle, the ``@prefix`` lines and their estimated tokens,
the subjects, those written as a whole IRI (a namespace no other kept term uses) and their
lines' tokens:

    HF_HUB_OFFLINE=1 python prefix_probe.py DATA_DIR
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

from ontoretrieve import Engine, load_settings
from ontoretrieve.context.tokens import estimate_tokens

UNITS = "../shared/bench/units/craft.jsonl"


def main() -> None:
    units = [json.loads(line) for line in Path(UNITS).read_text(encoding="utf-8").splitlines()]
    random.Random(7).shuffle(units)
    totals: Counter[str] = Counter()
    with Engine.open(load_settings(data_dir=sys.argv[1])) as engine:
        for unit in units[:40]:
            turtle = engine.retrieve(unit["text"], max_tokens=500).serialize("turtle")
            lines = turtle.splitlines()
            prefixes = [line for line in lines if line.startswith("@prefix")]
            subjects = [line.split()[0] for line in lines
                        if line and not line[0].isspace() and not line.startswith("@")]
            totals["units"] += 1
            totals["tokens"] += estimate_tokens(turtle)
            totals["prefix_lines"] += len(prefixes)
            totals["prefix_tokens"] += sum(estimate_tokens(line) for line in prefixes)
            totals["subjects"] += len(subjects)
            totals["whole_iri_subjects"] += sum(s.startswith("<") for s in subjects)
            totals["whole_iri_tokens"] += sum(estimate_tokens(line) for line in lines
                                              if line.startswith("<"))
    print(dict(totals))


if __name__ == "__main__":
    main()
