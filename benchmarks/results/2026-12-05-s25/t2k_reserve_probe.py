"""Probe (session 25): where the Text2KGBench gold cut at 500 tokens sits.

For each scoped Text2KGBench unit of a `bench recall` run, the gold terms that the context
holds but its 500-token cut does not, located among the unit's seeds or in its reserve (the
candidates the seed cut left out, best first), taken again with the run's settings:

    HF_HUB_OFFLINE=1 python t2k_reserve_probe.py RUN/base.jsonl --data-dir DATA
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from ontoretrieve.index.build import make_embedder, mention_store, open_query_index
from ontoretrieve.query.seeder import SeedRetriever
from ontoretrieve.settings import load_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    args = parser.parse_args()
    settings = load_settings(data_dir=args.data_dir)
    index, state = open_query_index(settings)
    store = mention_store(settings)
    retriever = SeedRetriever(settings, index, make_embedder(settings),
                              mentions=lambda: store.dictionary(sorted(state.ontologies)))
    rows = [json.loads(line) for line in args.rows.read_text().splitlines()]
    rows = [row for row in rows if row["source"] == "text2kg"]
    where: Counter[str] = Counter()
    ranks: Counter[int] = Counter()
    seeds_per_unit = []
    for row in rows:
        result = retriever.seeds(row["text"], state.named([row["unit_ontology_named"]]))
        seeds = {e.iri for e in result.seeds}
        seeds_per_unit.append(len(seeds))
        within = set(row["gold_at_tokens"]["500"])
        subjects = set(row["context_subjects"])
        for group in map(set, row["gold"]):
            if group & within or not group & subjects:
                continue
            if group & seeds:
                where["seed"] += 1
                continue
            found = [i for i, iri in enumerate(result.reserve) if iri in group]
            where["reserve" if found else "neither"] += 1
            if found:
                ranks[min(found[0] // 5 * 5, 25)] += 1
    print("units", len(rows), "seeds a unit", sum(seeds_per_unit) / len(seeds_per_unit))
    print(dict(where))
    print("reserve rank (5s):", sorted(ranks.items()))


if __name__ == "__main__":
    main()
