"""Why CRAFT gold the mention dictionary finds and keeps usable is no seed (session 32):
for each such unit-term pair, the gold's strongest mention (kind, strength, misfit and
outranked flags) and the stage that dropped it (evidence cut, seed cap). Over a
whole-suite run's rows; run alone:

    HF_HUB_OFFLINE=1 python why_found_gold_is_cut.py CRAFT_UNITS.jsonl RUN/base.jsonl DATA_DIR
"""

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import ontoretrieve.query.seeder as seeder_module
from ontoretrieve import Engine, load_settings

CAUGHT: dict[str, Any] = {}


def main() -> None:
    units_path, rows_path, data_dir = (Path(a) for a in sys.argv[1:4])
    units = [json.loads(line) for line in units_path.read_text().splitlines() if line.strip()]
    seeds_of = {row["id"]: set(row["retrieved_term_iris"])
                for row in map(json.loads, rows_path.read_text().splitlines())}
    _spy()
    stages: Counter[str] = Counter()
    flags: Counter[tuple[str, ...]] = Counter()
    examples: Counter[tuple[str, str, str]] = Counter()
    with Engine.open(load_settings(data_dir=data_dir)) as engine:
        seeder = engine._retriever(engine._tenant("default")).seed_retriever
        for unit in units:
            missed = [g for g in unit["gold"] if g["iri"] not in seeds_of[unit["unit_id"]]]
            usable = {m.iri for m in seeder.mentions(unit["text"])} if missed else set()
            missed = [g for g in missed if g["iri"] in usable]
            if not missed:
                continue
            seeder.seeds(unit["text"])
            for gold in missed:
                stage, flag = _why(gold["iri"])
                stages[stage] += 1
                flags[flag] += 1
                examples[(stage, gold["label_in_annotation"], "/".join(flag))] += 1
    print("stage", dict(stages))
    print("flags", flags.most_common(20))
    for example, n in examples.most_common(60):
        print(n, example)


def _spy() -> None:
    real_mentions = seeder_module.SeedRetriever._with_mentions
    real_select = seeder_module.select_seeds

    def with_mentions(self: Any, *args: Any, **kwargs: Any) -> Any:
        found = real_mentions(self, *args, **kwargs)
        CAUGHT["mentions"] = found[0]
        return found

    def select(fused: Any, *args: Any, **kwargs: Any) -> Any:
        seeds, counts = real_select(fused, *args, **kwargs)
        CAUGHT["fused"] = {h.iri for hits in fused for h in hits}
        CAUGHT["seeds"] = {s.iri for s in seeds}
        CAUGHT["counts"] = counts
        return seeds, counts

    seeder_module.SeedRetriever._with_mentions = with_mentions  # type: ignore[method-assign]
    seeder_module.select_seeds = select  # type: ignore[assignment]


def _why(iri: str) -> tuple[str, tuple[str, ...]]:
    own = [m for m in CAUGHT["mentions"] if m.iri == iri]
    best = max(own, key=lambda m: m.strength) if own else None
    flag = ("no mention",) if best is None else (
        best.kind, f"{best.strength:.2f}", *(name for name in ("misfit", "outranked",
                                                                 "contained", "derived")
                                            if getattr(best, name)))
    if iri in CAUGHT["seeds"]:
        return "seeded now", flag
    if iri not in CAUGHT["fused"]:
        return "not fused", flag
    return "cut", flag


if __name__ == "__main__":
    main()
