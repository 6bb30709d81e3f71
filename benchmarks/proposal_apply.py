"""Time validate, apply (with the index sync) and rollback of one update on a big ontology.

Run on a copy of an indexed data dir (apply writes to it; rollback restores
the ontology's hash, the index keeps both versions' vectors)::

    cp -r /work/data/bench /work/data/bench-apply
    python benchmarks/proposal_apply.py --data-dir /work/data/bench-apply

The update adds one labelled class under an existing class of the largest
ontology (or ``--ontology IRI``); the figures go to stdout as JSON.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from ontoretrieve import Engine, Mode, OntologyUpdate, Proposal, load_settings
from ontoretrieve.rdf.vocab import OWL, RDF, RDFS


def run(data_dir: Path, ontology: str | None) -> dict[str, Any]:
    with Engine.open(load_settings(data_dir=data_dir)) as engine:
        versions = engine.catalog_list()
        target = (next(v for v in versions if v.ontology_iri == ontology) if ontology
                  else max(versions, key=lambda v: v.triple_count))
        parent = next(t.subject.value for t in engine.store.graph_triples(target.graph)
                      if t.predicate.value == RDF + "type" and t.object.value == OWL + "Class"
                      and isinstance(t.subject, ox.NamedNode))
        new = "urn:ontoretrieve:bench:ZeolithicQuasicrystal"
        add = (f"<{new}> <{RDF}type> <{OWL}Class> ; <{RDFS}label> \"zeolithic quasicrystal\" "
               f"; <{RDFS}subClassOf> <{parent}> .")
        proposal = Proposal(updates=[OntologyUpdate(
            ontology_iri=target.ontology_iri, base_hash=target.content_hash, add=add)])
        engine.retrieve("warm-up: load the model and the index")
        timings: dict[str, float] = {}
        started = time.perf_counter()
        report = engine.propose(proposal)
        timings["validate"] = time.perf_counter() - started
        started = time.perf_counter()
        result = engine.apply(proposal)
        timings["apply_with_sync"] = time.perf_counter() - started
        started = time.perf_counter()
        found = new in engine.retrieve("a zeolithic quasicrystal", mode=Mode.VECTOR).terms
        timings["first_retrieval"] = time.perf_counter() - started
        started = time.perf_counter()
        _, back = engine.rollback(target.ontology_iri)
        timings["rollback_with_sync"] = time.perf_counter() - started
        restored = next(v.content_hash for v in engine.catalog_list()
                        if v.source == target.source)
    assert result.index is not None
    return {
        "date": time.strftime("%Y-%m-%d %H:%M"), "ontology": target.ontology_iri,
        "triples": target.triple_count, "conforms": report.conforms,
        "violations": len(report.violations), "conflicts": report.consistency_conflicts,
        "seconds": {k: round(v, 2) for k, v in timings.items()},
        "apply_index": {"embedded": result.index.atoms_embedded,
                        "reused": result.index.atoms_reused,
                        "deleted": result.index.atoms_deleted},
        "rollback_index": {"embedded": back.atoms_embedded, "reused": back.atoms_reused},
        "new_term_retrieved": found, "hash_restored": restored == target.content_hash,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--ontology")
    args = parser.parse_args()
    print(json.dumps(run(args.data_dir, args.ontology), indent=2))


if __name__ == "__main__":
    main()
