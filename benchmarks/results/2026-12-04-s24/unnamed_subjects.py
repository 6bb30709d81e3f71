"""Subjects of a context that nothing names (no label, no symbol, and an IRI that spells
no label of the term), with and without ``expand.name_reached_terms``, at the default
budget, over CRAFT paragraphs (shuffled with seed 3): how many, what their statements
cost in estimated tokens, and how many are gold. Session 24 (RESULTS.md); session 23's
probe counted any subject without a label or symbol.

    HF_HUB_OFFLINE=1 python unnamed_subjects.py CRAFT_UNITS.jsonl --data-dir DATA
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from pathlib import Path

import pyoxigraph as ox

from ontoretrieve.bench.runner import readable_iris
from ontoretrieve.context.model import serialize_triples
from ontoretrieve.context.tokens import estimate_tokens
from ontoretrieve.engine import Engine
from ontoretrieve.rdf.graph_index import Role, RoleTable, role_of
from ontoretrieve.settings import load_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("units", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--count", type=int, default=40)
    args = parser.parse_args()
    units = [json.loads(line) for line in args.units.read_text().splitlines()]
    random.Random(3).shuffle(units)
    for named in (False, True):
        settings = load_settings(data_dir=args.data_dir, expand={"name_reached_terms": named})
        roles = RoleTable.of(settings.index.label_predicates, settings.expand.symbol_predicates)
        engine = Engine.open(settings)
        engine.retrieve("warm")  # opens the default tenant's retriever
        reader = engine._retriever(engine._tenant("default")).reader  # a probe, not the API
        subjects = nameless = gold_nameless = tokens = nameless_tokens = 0
        for unit in units[:args.count]:
            context = engine.retrieve(unit["text"])
            by_subject: dict[str, list[ox.Triple]] = defaultdict(list)
            for t in context.triples():
                if isinstance(t.subject, ox.NamedNode):
                    by_subject[t.subject.value].append(t)
            unnamed = [iri for iri, ts in by_subject.items() if not any(
                not isinstance(t.object, ox.Triple)
                and role_of(t.predicate, t.object, roles) in (Role.LABEL, Role.SYMBOL)
                for t in ts)]
            readable = readable_iris(reader, unnamed, settings.index.label_predicates)
            unnamed = [iri for iri in unnamed if iri not in readable]
            subjects += len(by_subject)
            nameless += len(unnamed)
            gold_nameless += len(set(unnamed) & set(unit["gold_iris"]))
            tokens += context.metrics.context_tokens or 0
            # What they cost: the context's Turtle with them, less the Turtle without them.
            drop = set(unnamed)
            rest = [t for t in context.triples() if t.subject.value not in drop]
            nameless_tokens += (estimate_tokens(serialize_triples(context.triples(), "turtle"))
                                - estimate_tokens(serialize_triples(rest, "turtle")))
        engine.close()
        print(f"name_reached_terms={named}: {args.count} paragraphs, {subjects} subjects, "
              f"{nameless} named by nothing ({gold_nameless} gold), their statements "
              f"~{nameless_tokens} of {tokens} context tokens")


if __name__ == "__main__":
    main()
