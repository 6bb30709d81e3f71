"""Probe: the readings a document's abbreviations add to CRAFT's paragraphs, before any
engine change (a monkeypatched ``abbreviations``; session 43's count, kept for the record).

    python document_abbreviation_readings.py DATA_DIR RUN/base.jsonl UNITS/craft.jsonl [--whole]

Without ``--whole`` any reading on a short form counts (5,236 new readings, 170 gold); with
it only a reading that takes in the short form's whole long form (406, 157 gold).
"""

import collections
import json
import sys
from pathlib import Path

import ontoretrieve.index.mention_match as mm
from ontoretrieve import load_settings
from ontoretrieve.index.mention_text import tokenize
from ontoretrieve.query.seeder import SeedRetriever

data_dir, run, units_path = sys.argv[1:4]
whole_only = "--whole" in sys.argv
dictionary = SeedRetriever.open(load_settings(data_dir=data_dir)).dictionary
rows = {json.loads(line)["id"]: json.loads(line)
        for line in Path(run).read_text(encoding="utf-8").splitlines()}
units = [json.loads(line) for line in Path(units_path).read_text(encoding="utf-8").splitlines()]
by_doc = collections.defaultdict(list)
for unit in units:
    by_doc[unit["doc_id"]].append(unit)
own_abbreviations = mm.abbreviations
document_aliases = {}
for doc, members in by_doc.items():
    aliases = {}
    for unit in members:  # file order is the article's order
        for short, keys in own_abbreviations(tokenize(unit["text"])).items():
            aliases.setdefault(short, keys)
    document_aliases[doc] = aliases
gained, other = collections.Counter(), collections.Counter()
for unit in units:
    gold = {g["iri"]: g for g in unit["gold"]}
    seeds = set(rows[unit["unit_id"]]["retrieved_term_iris"])
    own = own_abbreviations(tokenize(unit["text"]))
    before = {m.iri for m in dictionary.find(unit["text"])}
    extra = {k: v for k, v in document_aliases[unit["doc_id"]].items() if k not in own}
    mm.abbreviations = lambda tokens, extra=extra: {**extra, **own_abbreviations(tokens)}
    after = dictionary.find(unit["text"])
    mm.abbreviations = own_abbreviations

    def whole(m, extra=extra):
        return any(" " + " ".join(v) + " " in " " + m.key + " " for v in extra.values())

    for m in {m.iri: m for m in after if m.iri not in before}.values():
        if whole_only and not whole(m):
            continue
        if m.iri in gold:
            gained[(gold[m.iri]["label_in_annotation"], m.text, m.iri in seeds)] += 1
        else:
            other[(m.text, m.iri.rsplit("/", 1)[-1])] += 1
print("new readings", sum(gained.values()) + sum(other.values()), "gold", sum(gained.values()))
for key, count in gained.most_common(40):
    print(count, key)
print("--- other", sum(other.values()))
for key, count in other.most_common(40):
    print(count, key)
