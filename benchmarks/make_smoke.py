"""Build the smoke suite in benchmarks/smoke from the bench data (the result is committed).

About 50 units with the ontologies they need, small enough for CI to index
and run in a few minutes:

- 20 Text2KGBench sentences, with all 19 Text2KGBench DBpedia ontologies;
- 15 MeasEval paragraphs, with the QUDT units vocabulary;
- 15 CRAFT paragraphs with gold in the Cell Ontology or the Sequence Ontology,
  with those two ontologies; their gold is cut to the CL and SO terms (the
  only ones the smoke catalog holds).

Units are drawn with a fixed seed; the catalog files are copied unchanged.

    python benchmarks/make_smoke.py ../shared/bench
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "smoke"
CATALOG = {
    "t2k-dbpedia": "t2k-dbpedia/*.ttl",
    "qudt": "qudt/VOCAB_QUDT-UNITS-ALL.ttl",
    "obo": "obo/craft-[CS][LO].ttl",
}


def _units(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def _slim(unit: dict[str, Any]) -> dict[str, Any]:
    keep = ("unit_id", "source", "text", "gold_iris", "gold_any_of", "gold_iris_derived",
            "ontology")
    return {k: unit[k] for k in keep if k in unit}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bench", type=Path, help="the bench folder (../shared/bench)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    units = rng.sample(_units(args.bench / "units/t2k_dbpedia.jsonl"), 20)
    units += rng.sample(_units(args.bench / "units/measeval.jsonl"), 15)
    craft = []
    for unit in _units(args.bench / "units/craft.jsonl"):
        gold = [iri for iri in unit["gold_iris"] if "/CL_" in iri or "/SO_" in iri]
        if gold:
            craft.append({**unit, "gold_iris": gold, "gold_any_of": []})
    units += rng.sample(craft, 15)
    OUT.mkdir(exist_ok=True)
    (OUT / "units.jsonl").write_text("".join(json.dumps(_slim(u)) + "\n" for u in units))
    for folder, pattern in CATALOG.items():
        target = OUT / "catalog" / folder
        target.mkdir(parents=True, exist_ok=True)
        for path in sorted((args.bench / "catalog").glob(pattern)):
            shutil.copyfile(path, target / path.name)
    print(f"{len(units)} units and {sum(1 for _ in (OUT / 'catalog').rglob('*.ttl'))} "
          f"catalog files in {OUT}")


if __name__ == "__main__":
    main()
