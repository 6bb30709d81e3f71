"""Build the smoke suite in benchmarks/smoke from the bench data (the result is committed).

About 50 units with the ontologies they need, small enough for CI to index
and run in about a minute:

- 20 Text2KGBench sentences, with all 19 Text2KGBench DBpedia ontologies;
- 15 MeasEval paragraphs, with the QUDT units vocabulary;
- 15 CRAFT paragraphs with gold in the Cell Ontology or the Sequence Ontology,
  with those two ontologies; their gold is cut to the CL and SO terms (the
  only ones the smoke catalog holds).

Units are drawn with a fixed seed. The Text2KGBench files are copied
unchanged; the three large vocabularies are cut (``--share``): every term the
units' gold names, its ancestors, and a seeded share of the other terms as
distractors, each term with all its statements and the blank nodes under them,
so the index holds about a third of the atoms the whole files give (indexing
is what the smoke test spends its time on: the encoder runs about 100 texts a
second on two cores).

    python benchmarks/make_smoke.py ../shared/bench
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyoxigraph as ox

OUT = Path(__file__).parent / "smoke"
CATALOG = {
    "t2k-dbpedia": "t2k-dbpedia/*.ttl",
    "qudt": "qudt/VOCAB_QUDT-UNITS-ALL.ttl",
    "obo": "obo/craft-[CS][LO].ttl",
}
CUT = ("qudt", "obo")  # the folders whose files are cut to the gold and a share of the rest
LABELS = {"http://www.w3.org/2000/01/rdf-schema#label",
          "http://www.w3.org/2004/02/skos/core#prefLabel"}
PARENTS = {"http://www.w3.org/2000/01/rdf-schema#subClassOf",
           "http://www.w3.org/2004/02/skos/core#broader"}
PREFIXES = {"rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
            "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
            "owl": "http://www.w3.org/2002/07/owl#",
            "xsd": "http://www.w3.org/2001/XMLSchema#",
            "skos": "http://www.w3.org/2004/02/skos/core#",
            "dcterms": "http://purl.org/dc/terms/",
            "obo": "http://purl.obolibrary.org/obo/",
            "oboInOwl": "http://www.geneontology.org/formats/oboInOwl#",
            "qudt": "http://qudt.org/schema/qudt/",
            "unit": "http://qudt.org/vocab/unit/",
            "quantitykind": "http://qudt.org/vocab/quantitykind/"}


def _units(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def _slim(unit: dict[str, Any]) -> dict[str, Any]:
    keep = ("unit_id", "source", "text", "gold_iris", "gold_any_of", "gold_iris_derived",
            "ontology")
    return {k: unit[k] for k in keep if k in unit}


def cut(triples: Iterable[ox.Triple], keep: set[str], share: float,
        rng: random.Random) -> list[ox.Triple]:
    """The statements of the terms in ``keep``, their ancestors and a ``share`` of the others.

    A term is a named subject with a label; named subjects without one (the
    ontology header) always stay, and so do the blank nodes under a kept subject.

    >>> ex, label, sub = "http://x/", ox.NamedNode(next(iter(LABELS))), ox.NamedNode(
    ...     "http://www.w3.org/2000/01/rdf-schema#subClassOf")
    >>> t = [ox.Triple(ox.NamedNode(ex + n), label, ox.Literal(n)) for n in "abcd"]
    >>> t.append(ox.Triple(ox.NamedNode(ex + "a"), sub, ox.NamedNode(ex + "b")))
    >>> sorted({x.subject.value[-1] for x in cut(t, {ex + "a"}, 0.0, random.Random(1))})
    ['a', 'b']
    """
    by_subject: dict[ox.NamedNode | ox.BlankNode, list[ox.Triple]] = defaultdict(list)
    for triple in triples:
        by_subject[triple.subject].append(triple)  # type: ignore[index]
    terms = sorted(s.value for s, ts in by_subject.items() if isinstance(s, ox.NamedNode)
                   and any(t.predicate.value in LABELS for t in ts))
    term_set = set(terms)
    others = [t for t in terms if t not in keep]
    chosen = set(keep) | set(rng.sample(others, round(share * len(others))))
    chosen |= _ancestors(chosen, by_subject)
    kept: list[ox.Triple] = []
    pending: list[ox.NamedNode | ox.BlankNode] = [
        s for s in by_subject if isinstance(s, ox.NamedNode)
        and (s.value in chosen or s.value not in term_set)]
    seen: set[ox.NamedNode | ox.BlankNode] = set(pending)
    while pending:
        for triple in by_subject.get(pending.pop(), []):
            kept.append(triple)
            if isinstance(triple.object, ox.BlankNode) and triple.object not in seen:
                seen.add(triple.object)
                pending.append(triple.object)
    return kept


def _ancestors(terms: set[str],
               by_subject: dict[ox.NamedNode | ox.BlankNode, list[ox.Triple]]) -> set[str]:
    found: set[str] = set()
    pending = list(terms)
    while pending:
        for triple in by_subject.get(ox.NamedNode(pending.pop()), []):
            parent = triple.object
            if (triple.predicate.value in PARENTS and isinstance(parent, ox.NamedNode)
                    and parent.value not in found):
                found.add(parent.value)
                pending.append(parent.value)
    return found


def _copy(path: Path, target: Path, gold: set[str], share: float | None, seed: int) -> None:
    if share is None:
        shutil.copyfile(path, target)
        return
    triples = cut(ox.parse(path=path), gold, share, random.Random(f"{seed}:{path.name}"))
    ox.serialize(_stable_blank_nodes(triples), target, ox.RdfFormat.TURTLE, prefixes=PREFIXES)


def _stable_blank_nodes(triples: list[ox.Triple]) -> list[ox.Triple]:
    """Blank nodes renamed in order of appearance (the parser names them at random)."""
    names: dict[ox.BlankNode, ox.BlankNode] = {}

    def stable(term: Any) -> Any:
        if isinstance(term, ox.BlankNode):
            return names.setdefault(term, ox.BlankNode(f"b{len(names)}"))
        return term

    return [ox.Triple(stable(t.subject), t.predicate, stable(t.object)) for t in triples]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bench", type=Path, help="the bench folder (../shared/bench)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--share", type=float, default=0.25,
                        help="the share of the large vocabularies' other terms kept")
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
    named = {iri for u in units for iri in u["gold_iris"] + u.get("gold_iris_derived", [])}
    named |= {iri for u in units for group in u.get("gold_any_of", []) for iri in group}
    shutil.rmtree(OUT / "catalog", ignore_errors=True)
    for folder, pattern in CATALOG.items():
        target = OUT / "catalog" / folder
        target.mkdir(parents=True, exist_ok=True)
        for path in sorted((args.bench / "catalog").glob(pattern)):
            _copy(path, target / path.name, named, args.share if folder in CUT else None,
                  args.seed)
    print(f"{len(units)} units and {sum(1 for _ in (OUT / 'catalog').rglob('*.ttl'))} "
          f"catalog files in {OUT}")


if __name__ == "__main__":
    main()
