"""Session 23's probes of seed misses (numbers in RESULTS.md, session 23).

    HF_HUB_OFFLINE=1 python probes.py bridge RUN/base.jsonl --data-dir DATA
    HF_HUB_OFFLINE=1 python probes.py rootfold RUN/base.jsonl --data-dir DATA

``bridge``: terms a same-name bridge would add: a span names term T by a form other than
a label or exact synonym ("bp", QUDT's Base Pair), and a term of another ontology has
one of T's names (SO's base pair). ``rootfold``: terms the derivational root of a text's
adjective would name if it were also looked up among the names' stems ("olfactory" ->
"olfaction"), not only among their roots.
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path
from typing import Any

import ontoretrieve.index.mention_match as mm
from ontoretrieve.index.build import mention_store
from ontoretrieve.index.mention_keys import form_keys
from ontoretrieve.index.mention_match import MentionDictionary
from ontoretrieve.settings import load_settings


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _dictionary(data_dir: Path) -> tuple[Any, list[str]]:
    settings = load_settings(data_dir=data_dir)
    state = json.loads((data_dir / "index" / "default" / "state.json").read_text())
    hashes = sorted(state["ontologies"])
    return mention_store(settings), hashes


def bridge(rows_file: Path, data_dir: Path) -> None:
    store, hashes = _dictionary(data_dir)
    names: dict[str, set[str]] = collections.defaultdict(set)
    keys_of: dict[str, set[str]] = collections.defaultdict(set)
    for h in hashes:
        for term in store.read(h):
            for form, kind in term.forms:
                keyed = form_keys(form, kind) if kind in ("label", "exact") else None
                if keyed and keyed[0] == "folded":
                    names[keyed[1]].add(term.iri)
                    keys_of[term.iri].add(keyed[1])
    dictionary: MentionDictionary = store.dictionary(hashes)
    gained: collections.Counter[str] = collections.Counter()
    other: collections.Counter[str] = collections.Counter()
    for row in _rows(rows_file):
        if row["source"] == "text2kg":
            continue
        gold = {i for g in row["gold"] for i in g}
        found = dictionary.find(row["text"])
        named = {m.iri for m in found}
        bridged: set[str] = set()
        for m in found:
            if m.kind not in ("label", "exact") or m.derived:
                for key in keys_of.get(m.iri, ()):
                    bridged |= names[key] - {m.iri}
        for iri in bridged - named:
            if iri in gold and iri not in row["retrieved_term_iris"]:
                gained[iri.rsplit("/", 1)[-1]] += 1
            elif iri not in gold:
                other[iri.rsplit("/", 1)[-1]] += 1
    print(f"gold newly named {sum(gained.values())}, other terms {sum(other.values())}")
    print("gold:", gained.most_common(20))
    print("other:", other.most_common(30))


def rootfold(rows_file: Path, data_dir: Path) -> None:
    store, hashes = _dictionary(data_dir)
    dictionary: MentionDictionary = store.dictionary(hashes)
    gold_hits: collections.Counter[tuple[str, ...]] = collections.Counter()
    other: collections.Counter[tuple[str, ...]] = collections.Counter()
    for row in _rows(rows_file):
        if row["source"] == "text2kg":
            continue
        text, gold = row["text"], {i for g in row["gold"] for i in g}
        tokens = mm.tokenize(text)
        named = {m.iri for m in dictionary.find(text)}
        extra = {m.iri: m for m in dictionary._scan(
            "folded", mm._root_stream(tokens), tokens, text, folded=True, derived=True)
            if m.iri not in named}
        for iri, m in extra.items():
            key = (m.text.lower(), m.form, m.kind, iri.rsplit("/", 1)[-1])
            (gold_hits if iri in gold else other)[key] += 1
    print(f"gold newly named {sum(gold_hits.values())}, other terms {sum(other.values())}")
    print("gold:", gold_hits.most_common(20))
    print("other:", other.most_common(30))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("probe", choices=["bridge", "rootfold"])
    parser.add_argument("rows", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    args = parser.parse_args()
    {"bridge": bridge, "rootfold": rootfold}[args.probe](args.rows, args.data_dir)


if __name__ == "__main__":
    main()
