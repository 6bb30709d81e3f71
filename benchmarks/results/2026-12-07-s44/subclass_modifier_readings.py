"""Probe (session 44, counted, not built): "rod photoreceptors" read as the one subclass
of *photoreceptor cell* whose name says "rod".

A mention of term P preceded by a word M is read as D when D is the only class within
DEPTH subClassOf steps under P whose name has M (by stem or root), and every other word
of D's name the text says too (cohesion). Counted over the CRAFT units against a run of
record's seeds: gold pairs already seeded, gold pairs newly read, other pairs newly read.

    python subclass_modifier_readings.py OBO_DIR DATA_DIR RUN/base.jsonl CRAFT.jsonl DEPTH
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

import pyoxigraph as ox

from ontoretrieve import load_settings
from ontoretrieve.index.mention_text import fold_word, is_stopword_phrase, root_word, tokenize
from ontoretrieve.query.seeder import SeedRetriever

OBO = "http://www.geneontology.org/formats/oboInOwl#"
NAMING = {"http://www.w3.org/2000/01/rdf-schema#label", OBO + "hasExactSynonym"}
SUBCLASS = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
OUTRIGHT = ("label", "exact", "symbol")


def read_catalog(folder: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    names: dict[str, set[str]] = collections.defaultdict(set)
    children: dict[str, set[str]] = collections.defaultdict(set)
    for path in sorted(folder.glob("*.ttl")):
        store = ox.Store()
        store.bulk_load(path=str(path), format=ox.RdfFormat.TURTLE)
        for q in store.quads_for_pattern(None, None, None, None):
            if q.predicate.value in NAMING and isinstance(q.object, ox.Literal):
                names[q.subject.value].add(q.object.value)
            elif (q.predicate.value == SUBCLASS and isinstance(q.object, ox.NamedNode)
                  and isinstance(q.subject, ox.NamedNode)):
                children[q.object.value].add(q.subject.value)
    return names, children


def words(name: str) -> set[str]:
    return {fold_word(t.text) for t in tokenize(name) if t.is_word}


def main() -> None:
    obo, data_dir, run, units, depth = sys.argv[1:6]
    names, children = read_catalog(Path(obo))
    by_parent: dict[str, dict[str, set[str]]] = {}

    def subclasses_by_word(parent: str) -> dict[str, set[str]]:
        if parent not in by_parent:
            own = set().union(*(words(n) for n in names[parent]))
            seen: set[str] = set()
            frontier = {parent}
            for _ in range(int(depth)):
                frontier = {c for x in frontier for c in children.get(x, ())} - seen
                seen |= frontier
            found: dict[str, set[str]] = collections.defaultdict(set)
            for sub in seen:
                for name in names.get(sub, ()):
                    for word in words(name) - own:
                        found[word].add(sub)
                        found["root:" + root_word(word)].add(sub)
            by_parent[parent] = found
        return by_parent[parent]

    dictionary = SeedRetriever.open(load_settings(data_dir=Path(data_dir))).dictionary
    rows = {json.loads(line)["id"]: json.loads(line)
            for line in Path(run).read_text(encoding="utf-8").splitlines()}
    gold_new: collections.Counter[tuple[str, str, str]] = collections.Counter()
    other_new: collections.Counter[tuple[str, str, str]] = collections.Counter()
    gold_seeded = 0
    for line in Path(units).read_text(encoding="utf-8").splitlines():
        unit = json.loads(line)
        seeds = set(rows[unit["unit_id"]]["retrieved_term_iris"])
        gold = set(unit["gold_iris"])
        tokens = tokenize(unit["text"])
        said = {fold_word(t.text) for t in tokens if t.is_word}
        said_roots = {root_word(w) for w in said}
        found = dictionary.find(unit["text"])
        outright = [(m.start, m.end) for m in found if m.kind in OUTRIGHT]
        readings = set()
        for m in found:
            if m.iri not in names:
                continue
            before = [t for t in tokens if t.end <= m.start]
            if not before or not before[-1].is_word or len(before[-1].text) < 2:
                continue
            word = fold_word(before[-1].text)
            if is_stopword_phrase([word]) or any(
                    a <= before[-1].start and b >= m.end for a, b in outright):
                continue
            table = subclasses_by_word(m.iri)
            hits = table.get(word) or table.get("root:" + root_word(word))
            if not hits or len(hits) != 1:
                continue
            sub = next(iter(hits))
            own = set().union(*(words(n) for n in names[m.iri]))
            if any(all(w in said or root_word(w) in said_roots for w in words(n) - own)
                   for n in names[sub]):
                readings.add((before[-1].text.lower(), m.text.lower(), sub))
        for word, span, sub in readings:
            label = min(names[sub], key=len)
            if sub in gold and sub in seeds:
                gold_seeded += 1
            elif sub in gold:
                gold_new[word, span, label] += 1
            elif sub not in seeds:
                other_new[word, span, label] += 1
    print(f"depth {depth}: gold seeded already {gold_seeded}, gold newly read "
          f"{sum(gold_new.values())}, others newly read {sum(other_new.values())}")
    print("gold:", gold_new.most_common(25))
    print("others:", other_new.most_common(25))


if __name__ == "__main__":
    main()
