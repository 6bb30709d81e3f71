"""Time validate, apply (with the index sync) and rollback of one update on a big ontology.

Run on a copy of an indexed data dir (apply writes to it; rollback restores
the ontology's hash, the index keeps both versions' vectors)::

    cp -r /work/data/bench /work/data/bench-apply
    python benchmarks/proposal_apply.py --data-dir /work/data/bench-apply

The update adds one labelled class under an existing class of the largest
ontology (or ``--ontology IRI``), stored as a layer over the base's graph; with
``--relabel`` it also replaces that class's label, a removal, so the new
version is written whole. The figures go to stdout as JSON. With
``--served`` the engine first answers a text on the ontology (as one that has
been serving has, so the ontology's graph is in its cache). With
``--readers`` a thread retrieves (distinct texts, so no cached answer) all
through the apply and the rollback, and the JSON says how many reads were
answered while each ran and the longest a read waited.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from ontoretrieve import Engine, Mode, OntologyUpdate, Proposal, load_settings
from ontoretrieve.rdf.vocab import OWL, RDF, RDFS


class Reader:
    """Retrieves in a loop on its own thread, recording when each read started and ended."""

    def __init__(self, engine: Engine) -> None:
        self.engine, self.reads, self.errors = engine, [], 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        number = 0
        while not self._stop.is_set():
            number += 1
            started = time.perf_counter()
            try:
                self.engine.retrieve(f"reading number {number} about a cell nucleus",
                                     mode=Mode.VECTOR)
            except Exception:  # counted: a read that failed during a write
                self.errors += 1
            self.reads.append((started, time.perf_counter()))

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def during(self, begin: float, end: float) -> dict[str, Any]:
        """Reads answered while [begin, end] ran; the longest read overlapping it."""
        answered = sorted(b - a for a, b in self.reads if begin <= b <= end)
        overlapping = [b - a for a, b in self.reads if a <= end and b >= begin]
        return {"answered": len(answered),
                "median_answered_s": round(answered[len(answered) // 2], 3) if answered else None,
                "longest_answered_s": round(max(answered, default=0.0), 2),
                "longest_overlapping_s": round(max(overlapping, default=0.0), 2),
                "errors": self.errors}


@contextmanager
def timed(timings: dict[str, float], name: str, spans: dict[str, tuple[float, float]]
          ) -> Iterator[None]:
    started = time.perf_counter()
    yield
    ended = time.perf_counter()
    timings[name] = ended - started
    spans[name] = (started, ended)


def run(data_dir: Path, ontology: str | None, readers: bool = False,
        cold: bool = False, served: bool = False, relabel: bool = False) -> dict[str, Any]:
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
        remove = ""
        if relabel:  # a removal: the new version cannot be a layer
            old = next(t for t in engine.store.graph_triples(target.graph)
                       if t.subject.value == parent and t.predicate.value == RDFS + "label")
            remove = f"{old} ."
            add += f" <{parent}> <{RDFS}label> \"{old.object.value} (relabelled)\" ."
        proposal = Proposal(updates=[OntologyUpdate(
            ontology_iri=target.ontology_iri, base_hash=target.content_hash, add=add,
            remove=remove)])
        engine.retrieve("warm-up: load the model and the index")
        if served:  # an engine that has answered texts on the ontology holds its graph
            label = next(t.object.value for t in engine.store.graph_triples(target.graph)
                         if t.subject.value == parent and t.predicate.value == RDFS + "label")
            engine.retrieve(label)
        graphs = engine._retriever(engine._tenant("default")).reader
        base_cached = graphs.cached(target.content_hash) is not None
        timings: dict[str, float] = {}
        spans: dict[str, tuple[float, float]] = {}
        reader = Reader(engine)
        if readers:
            reader.start()
        if not cold:  # else the apply validates by itself, as a client that never proposed
            with timed(timings, "validate", spans):
                engine.propose(proposal)
        with timed(timings, "apply_with_sync", spans):
            result = engine.apply(proposal)
        graphs = engine._retriever(engine._tenant("default")).reader
        derived = graphs.cached(result.applied[0].content_hash) is not None  # before a read
        stored_as_layer = next(v.added_graph is not None for v in engine.catalog_list()
                               if v.content_hash == result.applied[0].content_hash)
        with timed(timings, "first_retrieval", spans):
            found = new in engine.retrieve("a zeolithic quasicrystal", mode=Mode.VECTOR).terms
        with timed(timings, "rollback_with_sync", spans):
            _, back = engine.rollback(target.ontology_iri)
        if readers:
            time.sleep(2)
            reader.stop()
        restored = next(v.content_hash for v in engine.catalog_list()
                        if v.source == target.source)
    assert result.index is not None
    return {
        "date": time.strftime("%Y-%m-%d %H:%M"), "ontology": target.ontology_iri,
        "triples": target.triple_count, "cold_apply": cold, "served": served,
        "relabel": relabel, "stored_as_layer": stored_as_layer,
        "base_graph_cached": base_cached, "new_graph_derived": derived,
        "conforms": result.report.conforms, "violations": len(result.report.violations),
        "conflicts": result.report.consistency_conflicts,
        "seconds": {k: round(v, 2) for k, v in timings.items()},
        "apply_index": {"embedded": result.index.atoms_embedded,
                        "reused": result.index.atoms_reused,
                        "deleted": result.index.atoms_deleted},
        "apply_layered": result.index.versions_layered,
        "rollback_index": {"embedded": back.atoms_embedded, "reused": back.atoms_reused,
                           "revived": back.versions_revived, "deleted": back.atoms_deleted},
        "reads": ({name: reader.during(*spans[name]) for name in
                   ("apply_with_sync", "rollback_with_sync")} if readers else None),
        "new_term_retrieved": found, "hash_restored": restored == target.content_hash,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--ontology")
    parser.add_argument("--readers", action="store_true",
                        help="retrieve on a second thread all through apply and rollback")
    parser.add_argument("--cold", action="store_true",
                        help="apply without proposing first (the apply validates)")
    parser.add_argument("--served", action="store_true",
                        help="retrieve a text on the ontology before the apply, as a serving "
                        "engine has (its graph cached)")
    parser.add_argument("--relabel", action="store_true",
                        help="also replace the parent class's label (a removal: written whole)")
    args = parser.parse_args()
    print(json.dumps(run(args.data_dir, args.ontology, args.readers, args.cold, args.served,
                         args.relabel), indent=2))


if __name__ == "__main__":
    main()
