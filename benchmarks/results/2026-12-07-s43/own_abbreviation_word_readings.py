"""Probe, not adopted: what a paragraph's own short forms ("BMP" after "bone morphogenetic
protein (BMP)") would name by their own words besides their long forms, over CRAFT.

    python own_abbreviation_word_readings.py DATA_DIR RUN/base.jsonl UNITS/craft.jsonl

Session 43: 6 gold readings against 79 others ("FISH" the fishes, "AVE", "LOD").
"""

import collections
import json
import sys
from pathlib import Path

import ontoretrieve.index.mention_match as mm
from ontoretrieve import load_settings
from ontoretrieve.query.seeder import SeedRetriever

data_dir, run, units_path = sys.argv[1:4]
dictionary = SeedRetriever.open(load_settings(data_dir=data_dir)).dictionary
rows = {json.loads(line)["id"]: json.loads(line)
        for line in Path(run).read_text(encoding="utf-8").splitlines()}
own_abbreviations = mm.abbreviations
gained, other = collections.Counter(), collections.Counter()
for line in Path(units_path).read_text(encoding="utf-8").splitlines():
    unit = json.loads(line)
    if not own_abbreviations(mm.tokenize(unit["text"])):
        continue
    gold = {g["iri"]: g for g in unit["gold"]}
    seeds = set(rows[unit["unit_id"]]["retrieved_term_iris"])
    before = {m.iri for m in dictionary.find(unit["text"])}
    mm.abbreviations = lambda tokens: {}
    plain = dictionary.find(unit["text"])
    mm.abbreviations = own_abbreviations
    for m in plain:
        if m.iri in before:
            continue
        if m.iri in gold:
            gained[(gold[m.iri]["label_in_annotation"], m.text, m.iri in seeds)] += 1
        else:
            other[(m.text, m.iri.rsplit("/", 1)[-1])] += 1
print("gold", sum(gained.values()), "other", sum(other.values()))
for key, count in gained.most_common(20):
    print(count, key)
for key, count in other.most_common(20):
    print(count, key)
